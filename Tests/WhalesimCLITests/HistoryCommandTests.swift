import Foundation
import Testing
import WhaleRecord

/// `whalesim history RUN_DIR` as a subprocess: the run's history as the JSON lines
/// `history.jsonl` held, from a compact run directory or an older one, and what each bad input
/// gets: 66 for a directory or history that is not there (and `--shrunk` on a run that did not
/// shrink), 64 for a truncated file, a wrong magic or an unknown version, each saying which.
@Suite(.serialized) struct HistoryCommandTests {
    let cli = SimulateCommandTests()
    static let fixtures = SimulateCommandTests.packageRoot.appendingPathComponent(
        "Tests/WhaleReportsTests/Fixtures/runs")

    func simulated(_ arguments: [String], expect status: Int32 = 0) throws -> (root: URL, run: URL) {
        let root = try cli.temporaryDirectory()
        let sim = try cli.whalesim(["simulate"] + arguments + ["--report-dir", root.path])
        #expect(sim.status == status, "\(sim.stdout)\(sim.stderr)")
        return (root, root.appendingPathComponent("latest").resolvingSymlinksInPath())
    }

    @Test func printsTheRunsLines() throws {
        let (root, run) = try simulated(["unicode", "--seed", "4"])
        defer { try? FileManager.default.removeItem(at: root) }
        let out = try cli.whalesim(["history", run.path])
        #expect(out.status == 0 && out.stderr.isEmpty, "\(out.stderr)")
        let lines = out.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "")
        let record = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: run.appendingPathComponent("run.json")))
                as? [String: Any])
        #expect(lines.count - 1 == (record["counts"] as? [String: Any])?["historyEvents"] as? Int)
        for line in lines.dropLast() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["t"] is Int && object["type"] is String)
        }
        #expect(out.stdout == (try RecordFiles.history(run)))
        // The file itself, and a latest link, work too.
        #expect(try cli.whalesim(["history", run.appendingPathComponent("history.whr").path]).stdout == out.stdout)
        #expect(try cli.whalesim(["history", root.appendingPathComponent("latest").path]).stdout == out.stdout)
        // The compact file is a fraction of the lines.
        let size = try Data(contentsOf: run.appendingPathComponent("history.whr")).count
        #expect(size * 5 < out.stdout.utf8.count, "\(size) bytes for \(out.stdout.utf8.count)")
    }

    @Test func printsAnOlderRunsJSONLinesAsTheyAre() throws {
        for name in ["valid-faults", "failed-shrunk"] {
            let dir = Self.fixtures.appendingPathComponent(name)
            let out = try cli.whalesim(["history", dir.path])
            #expect(out.status == 0, "\(out.stderr)")
            #expect(
                out.stdout == (try String(contentsOf: dir.appendingPathComponent("history.jsonl"), encoding: .utf8)),
                "\(name)")
        }
        let shrunk = try cli.whalesim([
            "history", "--shrunk", Self.fixtures.appendingPathComponent("failed-shrunk").path,
        ])
        #expect(shrunk.status == 0, "\(shrunk.stderr)")
        #expect(
            shrunk.stdout
                == (try String(
                    contentsOf: Self.fixtures.appendingPathComponent("failed-shrunk/shrunk-history.jsonl"),
                    encoding: .utf8)))
    }

    @Test func shrunkPrintsTheShrunkHistory() throws {
        let (root, run) = try simulated(
            ["same-position-storm", "--seed", "1", "--fault", "client-tie-priority"], expect: 2)
        defer { try? FileManager.default.removeItem(at: root) }
        let out = try cli.whalesim(["history", "--shrunk", run.path])
        #expect(out.status == 0, "\(out.stderr)")
        let full = try cli.whalesim(["history", run.path])
        #expect(!out.stdout.isEmpty && out.stdout.count < full.stdout.count)
        #expect(out.stdout.hasPrefix("{\"t\":"))
        let (validRoot, valid) = try simulated(["--seed", "2", "--ops", "20"])
        defer { try? FileManager.default.removeItem(at: validRoot) }
        let none = try cli.whalesim(["history", "--shrunk", valid.path])
        #expect(none.status == 66 && none.stderr.contains("no shrunk history"), "\(none.status) \(none.stderr)")
    }

    @Test func stopsQuietlyWhenTheReaderDoes() throws {
        let (root, run) = try simulated(["large-notes", "--seed", "1"])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(
            try cli.whalesim(["history", run.path]).stdout.utf8.count > 3 * 65_536, "a history longer than a pipe holds"
        )
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        let binary = SimulateCommandTests.packageRoot.appendingPathComponent(".build/debug/whalesim").path
        shell.arguments = ["-c", "set -o pipefail; '\(binary)' history '\(run.path)' 2>\(root.path)/err | head -2"]
        let out = Pipe()
        shell.standardOutput = out
        try shell.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0, "whalesim's exit status through pipefail")
        #expect(text.split(separator: "\n").count == 2)
        #expect(try String(contentsOf: root.appendingPathComponent("err"), encoding: .utf8).isEmpty)
    }

    @Test func badInputsSayWhatIsWrong() throws {
        let (root, run) = try simulated(["--seed", "3", "--ops", "200"])
        defer { try? FileManager.default.removeItem(at: root) }
        let fm = FileManager.default
        let bytes = try Data(contentsOf: run.appendingPathComponent("history.whr"))
        func copy(_ name: String, _ change: (URL) throws -> Void) throws -> URL {
            let dir = root.appendingPathComponent(name)
            try fm.copyItem(at: run, to: dir)
            try change(dir.appendingPathComponent("history.whr"))
            return dir
        }
        let cases: [(URL, Int32, String)] = [
            (root.appendingPathComponent("nope"), 66, "no such run directory or history file"),
            (try copy("gone") { try fm.removeItem(at: $0) }, 66, "history.whr: missing (nor is there a history.jsonl)"),
            (try copy("cut") { try bytes.prefix(bytes.count / 2).write(to: $0) }, 64, "history.whr: truncated"),
            (
                try copy("cut-header") { try bytes.prefix(7).write(to: $0) }, 64,
                "history.whr: truncated (the file ends inside its header)"
            ),
            (try copy("magic") { try Data("{\"t\":0}\n".utf8).write(to: $0) }, 64, "not a whalesim history file"),
            (try copy("empty") { try Data().write(to: $0) }, 64, "not a whalesim history file"),
            (
                try copy("version") {
                    var b = bytes; b[6] = 9; try b.write(to: $0)
                }, 64, "history format version 9 is not supported"
            ),
            (
                try copy("damaged") {
                    var b = bytes; b[b.count - 2] ^= 0xFF; try b.write(to: $0)
                }, 64, "history.whr: "
            ),
        ]
        for (dir, status, message) in cases {
            let out = try cli.whalesim(["history", dir.path])
            #expect(out.status == status, "\(dir.lastPathComponent): \(out.status) \(out.stderr)")
            #expect(
                out.stderr.hasPrefix("whalesim: history: ") && out.stderr.contains(message),
                "\(dir.lastPathComponent): \(out.stderr)")
        }
        #expect(try cli.whalesim(["history"]).status == 64)
    }
}
