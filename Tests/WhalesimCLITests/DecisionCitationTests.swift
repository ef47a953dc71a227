import Foundation
import Testing

/// Decisions are records in `docs/decisions/` (issue 45): code, tests, scripts and docs cite a record by
/// number and path, and the index lists every record once with its status. These tests keep the citations
/// honest: a citation of a record that does not exist (or of a heading that is not in it) fails, and so
/// does any citation left of the old diary, which moved whole to `docs/journal.md` and is no longer cited.
@Suite struct DecisionCitationTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let decisions = root.appendingPathComponent("docs/decisions")
    /// Where citations may live, relative to the root. The journal is history and is not scanned.
    static let scanned = ["Sources", "Tests", "scripts", "docs", "Scenarios", "README.md"]
    static let skipped: Set<String> = ["docs/journal.md"]
    /// Built from pieces so that this file does not cite what it forbids.
    static let diary = "docs/" + "decisions" + ".md"
    static let citation = try! NSRegularExpression(
        pattern: "docs/decisions/([0-9]{4})([A-Za-z0-9._-]*)(#[A-Za-z0-9_-]+)?")

    struct Line { let place: String; let text: String }

    /// Every line of every text file under the scanned paths, named `path:line`.
    static func lines() -> [Line] {
        var out: [Line] = []
        for entry in scanned {
            let url = root.appendingPathComponent(entry)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            let files: [URL]
            if isDirectory.boolValue {
                let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey])
                files = (walker?.allObjects as? [URL] ?? []).filter {
                    (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
                }
            } else {
                files = [url]
            }
            for file in files {
                let relative = String(file.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
                if skipped.contains(relative) || relative.contains("/.build") { continue }
                guard let data = try? Data(contentsOf: file), data.count < 4_000_000,
                    let text = String(data: data, encoding: .utf8)
                else { continue }
                for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where line.contains("decisions") {
                    out.append(Line(place: "\(relative):\(index + 1)", text: String(line)))
                }
            }
        }
        return out
    }

    /// The record files, by name (`0046-runner-on-epoll-loops.md`).
    static func records() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: decisions.path)
            .filter { $0.range(of: "^[0-9]{4}-[a-z0-9-]+\\.md$", options: .regularExpression) != nil }
            .sorted()
    }

    /// GitHub's anchors for a markdown file's headings: lower case, punctuation dropped, spaces as hyphens.
    static func anchors(of file: URL) throws -> Set<String> {
        let text = try String(contentsOf: file, encoding: .utf8)
        var out: Set<String> = []
        for line in text.split(separator: "\n") where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            let kept = title.unicodeScalars.filter {
                CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" || $0 == "_"
            }
            out.insert(String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-"))
        }
        return out
    }

    @Test func everyCitedRecordAndHeadingExists() throws {
        let names = try Self.records()
        #expect(!names.isEmpty, "no records in docs/decisions")
        var cited = 0
        for line in Self.lines() {
            let range = NSRange(line.text.startIndex..., in: line.text)
            for match in Self.citation.matches(in: line.text, range: range) {
                cited += 1
                let whole = String(line.text[Range(match.range, in: line.text)!])
                let number = String(line.text[Range(match.range(at: 1), in: line.text)!])
                let rest = Range(match.range(at: 2), in: line.text).map { String(line.text[$0]) } ?? ""
                let anchor = Range(match.range(at: 3), in: line.text).map { String(line.text[$0].dropFirst()) }
                // The path may end a sentence: "…0046-runner-on-epoll-loops.md." cites the .md file.
                var name = number + rest
                while name.hasSuffix(".") && !name.hasSuffix(".md") { name.removeLast() }
                if name.hasSuffix(".md") {
                    guard names.contains(name) else {
                        Issue.record("\(line.place) cites \(whole): docs/decisions/\(name) does not exist")
                        continue
                    }
                    if let anchor {
                        let headings = try Self.anchors(of: Self.decisions.appendingPathComponent(name))
                        #expect(
                            headings.contains(anchor),
                            "\(line.place) cites \(whole): docs/decisions/\(name) has no heading #\(anchor)")
                    }
                } else {
                    // A bare number (docs/decisions/0016) or a name cut short: some record must carry it.
                    #expect(
                        names.contains { $0.hasPrefix(name) && $0.hasPrefix(number + "-") },
                        "\(line.place) cites \(whole): no record in docs/decisions starts with \(name)")
                }
            }
        }
        #expect(cited > 0, "no citation of a decision record found under \(Self.scanned)")
    }

    @Test func nothingCitesTheOldDiary() {
        for line in Self.lines() where line.text.contains(Self.diary) {
            Issue.record(
                """
                \(line.place) cites \(Self.diary), which moved whole to docs/journal.md and is no longer \
                cited: cite the record in docs/decisions/ instead (\(line.text.trimmingCharacters(in: .whitespaces)))
                """)
        }
    }

    @Test func theIndexListsEveryRecordOnceWithAStatusThatNamesARecord() throws {
        let names = try Self.records()
        let numbers = names.map { String($0.prefix(4)) }
        #expect(Set(numbers).count == numbers.count, "two records share a number: \(numbers)")
        let index = try String(contentsOf: Self.decisions.appendingPathComponent("README.md"), encoding: .utf8)
        let row = try NSRegularExpression(
            pattern: "^\\| ([0-9]{4}) \\| \\[[^]]+\\]\\(([^)]+)\\) \\| ([^|]+) \\|$",
            options: .anchorsMatchLines)
        var listed: [String: Int] = [:]
        var rows = 0
        for (lineNumber, line) in index.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = String(line)
            guard text.hasPrefix("| 0") || text.hasPrefix("| 1") else { continue }
            let place = "docs/decisions/README.md:\(lineNumber + 1)"
            guard let match = row.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else {
                Issue.record("\(place) is not a row `| NNNN | [title](NNNN-name.md) | status |`: \(text)")
                continue
            }
            rows += 1
            let number = String(text[Range(match.range(at: 1), in: text)!])
            let link = String(text[Range(match.range(at: 2), in: text)!])
            let status = String(text[Range(match.range(at: 3), in: text)!]).trimmingCharacters(in: .whitespaces)
            listed[link, default: 0] += 1
            #expect(names.contains(link), "\(place) links \(link), which is not a record in docs/decisions")
            #expect(link.hasPrefix(number + "-"), "\(place) numbers \(link) as \(number)")
            checkStatus(status, of: number, at: place, numbers: numbers)
            if names.contains(link) {
                let record = try String(contentsOf: Self.decisions.appendingPathComponent(link), encoding: .utf8)
                let own = record.split(separator: "\n").first { $0.hasPrefix("Status: ") }.map(String.init)
                #expect(
                    own?.hasPrefix("Status: " + status) == true,
                    "\(place) says \(number) is \(status); the record's own line says \(own ?? "nothing")")
            }
        }
        #expect(rows > 0, "docs/decisions/README.md lists no record")
        for name in names {
            #expect(listed[name] == 1, "docs/decisions/README.md lists \(name) \(listed[name] ?? 0) times, not once")
        }
    }

    @Test func everyRecordSaysWhatItIsAndWhatReplacedIt() throws {
        let names = try Self.records()
        let numbers = names.map { String($0.prefix(4)) }
        for name in names {
            let text = try String(contentsOf: Self.decisions.appendingPathComponent(name), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let place = "docs/decisions/\(name)"
            #expect(
                lines.first?.hasPrefix("# \(name.prefix(4)). ") == true,
                "\(place):1 must be the title `# \(name.prefix(4)). ...`")
            for section in ["## Context", "## Decision", "## Figures", "## Consequences"] {
                #expect(lines.contains(section), "\(place) has no `\(section)` section")
            }
            guard let index = lines.firstIndex(where: { $0.hasPrefix("Status: ") }) else {
                Issue.record("\(place) has no `Status:` line")
                continue
            }
            let status = String(lines[index].dropFirst("Status: ".count))
            let word = status.hasPrefix("current") ? "current" : String(status.prefix("superseded by NNNN".count))
            checkStatus(word, of: String(name.prefix(4)), at: "\(place):\(index + 1)", numbers: numbers)
        }
    }

    /// `current`, or `superseded by NNNN` where NNNN is another existing record.
    func checkStatus(_ status: String, of number: String, at place: String, numbers: [String]) {
        if status == "current" { return }
        let prefix = "superseded by "
        guard status.hasPrefix(prefix) else {
            Issue.record("\(place): status `\(status)` is neither `current` nor `superseded by NNNN`")
            return
        }
        let by = String(status.dropFirst(prefix.count))
        #expect(by != number, "\(place): \(number) cannot be superseded by itself")
        #expect(numbers.contains(by), "\(place): \(number) is superseded by \(by), which is not a record")
    }
}
