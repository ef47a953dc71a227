import Foundation
import Testing

/// Issue 45's measures of a house a newcomer can find their way in, kept from drifting: the README is a
/// front door (at most 1,000 words), `docs/whats-here.md` one page (at most 1,200), every target's folder
/// has its README, and no source file but a generated one is over 400 lines.
@Suite struct HouseTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Words as `wc -w` counts them: runs of non-whitespace.
    static func words(_ path: String) throws -> Int {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            .split(whereSeparator: { $0.isWhitespace }).count
    }

    @Test func theFrontDoorAndTheMapStayShort() throws {
        #expect(try Self.words("README.md") <= 1_000, "README.md: at most 1,000 words; the detail goes to docs/")
        #expect(try Self.words("docs/whats-here.md") <= 1_200, "docs/whats-here.md: at most 1,200 words")
    }

    @Test func everyTargetHasAReadmeAndNoSourceFileIsOver400Lines() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let targets = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { !$0.hasPrefix(".") }
        #expect(targets.count > 10)
        for target in targets.sorted() {
            let folder = sources.appendingPathComponent(target)
            #expect(
                FileManager.default.fileExists(atPath: folder.appendingPathComponent("README.md").path),
                "Sources/\(target) has no README.md")
            let walker = FileManager.default.enumerator(atPath: folder.path)
            while let relative = walker?.nextObject() as? String {
                guard relative.hasSuffix(".swift"), !relative.contains("Generated/") else { continue }
                let text = try String(contentsOf: folder.appendingPathComponent(relative), encoding: .utf8)
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
                #expect(lines <= 400, "Sources/\(target)/\(relative): \(lines) lines (split it: at most 400)")
            }
        }
    }
}
