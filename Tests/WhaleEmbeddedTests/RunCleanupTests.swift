import Foundation
import Testing
@testable import WhaleEmbedded
#if canImport(Glibc)
    import Glibc
#endif

/// What a run leaves behind when a signal cuts it short (issue 20), and the fixtures built into the binary.
@Suite(.serialized) struct RunCleanupTests {
    func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "whalesim-cleanup-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A process id nobody runs now (kill(pid, 0) says ESRCH).
    func deadPid() -> Int32 {
        var pid: Int32 = 4_000_000
        while kill(pid, 0) == 0 || errno != ESRCH { pid -= 1 }
        return pid
    }

    @Test func staleDirectoriesOfGoneProcessesAreSweptOthersKept() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let gone = deadPid()
        for name in [
            "whalesim-run-\(gone)-abcd1234", "whalesim-run-\(gone)-fixtures-ef567890", "whalesim-run-\(getpid())-mine",
            "whalesim-run-1-init", "whalesim-run-test-notapid", "something-else",
        ] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        #expect(RunCleanup.sweepStaleDirectories(in: root) == 2)
        let left = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
        #expect(
            left
                == [
                    "something-else", "whalesim-run-\(getpid())-mine", "whalesim-run-1-init",
                    "whalesim-run-test-notapid",
                ].sorted())
    }

    @Test func madeDirectoriesAreNamedByPidAndRemovedByAnEmergencyStop() throws {
        let dir = try RunCleanup.makeDirectory(tag: "unit")
        #expect(dir.lastPathComponent.hasPrefix("whalesim-run-\(getpid())-unit-"))
        #expect(FileManager.default.fileExists(atPath: dir.path))
        // A child that would otherwise outlive us: SIGKILLed and reaped.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["30"]
        try child.run()
        // What emergencyStop does with what is registered (called on its own here: the global
        // registry may hold other tests' children).
        RunCleanup.stop(pids: [child.processIdentifier], directories: [dir.path])
        RunCleanup.unregister(directory: dir)
        #expect(!FileManager.default.fileExists(atPath: dir.path))
        // Killed and reaped: no such process any more (not even a zombie).
        #expect(kill(child.processIdentifier, 0) == -1 && errno == ESRCH)
    }

    /// The embedded copies are the files in Fixtures/ (regenerate with `python3 Fixtures/embed.py`).
    @Test func builtInFixturesMatchTheFiles() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let fixtures = root.appendingPathComponent("Fixtures")
        var expected = ["whaler/seed.json"]
        let small = fixtures.appendingPathComponent("salesforce/small")
        let walker = FileManager.default.enumerator(atPath: small.path)
        var found: [String] = []
        while let path = walker?.nextObject() as? String {
            if path.hasSuffix(".json") || path.hasSuffix(".jsonl") { found.append("salesforce/small/" + path) }
        }
        expected += found.sorted()
        #expect(BuiltinFixtures.files.map(\.path) == expected)
        for (path, text) in BuiltinFixtures.files {
            let file = try String(contentsOf: fixtures.appendingPathComponent(path), encoding: .utf8)
            #expect(file == text, "Fixtures/\(path) differs from the built-in copy: run python3 Fixtures/embed.py")
        }
        let written = try BuiltinFixtures.writeEmbedded()
        defer { BuiltinFixtures.cleanUp() }
        #expect(
            try String(contentsOf: written.appendingPathComponent("whaler/seed.json"), encoding: .utf8)
                == BuiltinFixtures.files[0].text)
        #expect(written.lastPathComponent.hasPrefix("whalesim-run-\(getpid())-fixtures-"))
    }
}
