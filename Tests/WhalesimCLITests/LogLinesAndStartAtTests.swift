import Foundation
import Testing

/// CI logs that move, and shards that start together (issue 46): `run`'s lines reach a pipe as
/// they are printed (not in one block at exit), and `--start-at` holds the load for its moment.
@Suite(.serialized) struct LogLinesAndStartAtTests {
    static let binary = RunCommandTests.root.appendingPathComponent(".build/debug/whalesim").path

    /// Each standard output line with when it arrived, and when the process ended.
    struct TimedRun {
        var status: Int32
        var lines: [(at: Date, text: String)]
        var stderr: String
        var started: Date
        var ended: Date
        func first(_ prefix: String) -> (at: Date, text: String)? { lines.first { $0.text.hasPrefix(prefix) } }
        var all: String { lines.map(\.text).joined(separator: "\n") + "\n" + stderr }
    }

    /// Runs whalesim with its standard output a pipe, as a CI job's is, reading it as it comes.
    func timed(_ arguments: [String]) throws -> TimedRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.currentDirectoryURL = RunCommandTests.root
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let lines = ArrivedLines()
        let reader = Thread {
            var pending = Data()
            while true {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                let now = Date()
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    lines.add(now, String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
            lines.finish()
        }
        let started = Date()
        try process.run()
        reader.start()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let ended = Date()
        lines.waitForEnd()
        return TimedRun(
            status: process.terminationStatus, lines: lines.all, stderr: String(decoding: e, as: UTF8.self),
            started: started, ended: ended)
    }

    func scenario(in dir: URL, seconds: Int = 2) throws -> String {
        let file = dir.appendingPathComponent("scenario.yml")
        try """
        name: live-lines
        \(RunCommandTests.header)
        clients: {count: 4, documents: 1, protocol: 2}
        mix: {typing-burst: 40, delete: 10}
        live:
          duration: \(seconds)s
          load: {profile: constant}
          think-time: {distribution: exponential, mean: 200, max: 1000}
          import: {pages: 0}
        checkers: [convergence, intention]
        thresholds: [convergence == valid, intention == valid]
        """.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    /// `--repeat 2` into a pipe: the second run's first line arrives while it runs, seconds
    /// before the process ends (block-buffered, every line came at exit).
    @Test func repeatLinesReachAPipeAsEachRunEnds() throws {
        let dir = try RunCommandTests().scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try timed([
            "run", try scenario(in: dir), "--repeat", "2", "--quiet", "--report-dir",
            dir.appendingPathComponent("R").path,
        ])
        #expect(run.status == 0, "\(run.all)")
        let second = try #require(run.first("repeat: run 2/2"), "\(run.all)")
        #expect(run.ended.timeIntervalSince(second.at) > 1.5, "the second run's line came at exit: \(run.all)")
        let first = try #require(run.first("repeat: run 1/2"))
        #expect(second.at.timeIntervalSince(first.at) > 1.5, "the first run's lines came with the second's")
    }

    /// `--start-at +SECONDS`: the setup runs, the runner says it waits, and the load line comes
    /// at the moment asked, not before.
    @Test func theLoadBeginsAtTheMomentAsked() throws {
        let dir = try RunCommandTests().scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try timed([
            "run", try scenario(in: dir), "--start-at", "+7", "--quiet", "--report-dir",
            dir.appendingPathComponent("R").path,
        ])
        #expect(run.status == 0, "\(run.all)")
        let waiting = try #require(run.first("waiting "), "\(run.all)")
        #expect(waiting.text.contains("for --start-at"))
        let load = try #require(run.first("whalesim run live-lines:"), "\(run.all)")
        // Launched a little after `started`: the load may begin no earlier than 7 s after it.
        #expect(
            load.at.timeIntervalSince(run.started) >= 6.9, "load began \(load.at.timeIntervalSince(run.started)) s in")
        #expect(load.at > waiting.at)
    }

    /// What each bad `--start-at` gets: exit 64 and the reason, before anything starts.
    @Test func aStartTimeAlreadyPastOrMalformedIsRefused() throws {
        let past = try timed(["run", "live-demo", "--start-at", "2000-01-01T00:00:00Z"])
        #expect(past.status == 64, "\(past.all)")
        #expect(past.stderr.contains("--start-at 2000-01-01T00:00:00Z: that moment is already past"), "\(past.stderr)")
        let words = try timed(["run", "live-demo", "--start-at", "soon"])
        #expect(words.status == 64)
        #expect(words.stderr.contains("--start-at soon: not a time"), "\(words.stderr)")
        let negative = try timed(["run", "live-demo", "--start-at", "+-5"])
        #expect(negative.status == 64)
        #expect(negative.stderr.contains("+SECONDS wants a number of seconds"), "\(negative.stderr)")
        let repeated = try timed(["run", "live-demo", "--start-at", "+60", "--repeat", "2"])
        #expect(repeated.status == 64)
        #expect(repeated.stderr.contains("--start-at and --repeat cannot be combined"), "\(repeated.stderr)")
    }
}

/// Lines from a reader thread, with when each arrived.
final class ArrivedLines: @unchecked Sendable {
    private let lock = NSCondition()
    private var lines: [(at: Date, text: String)] = []
    private var ended = false

    func add(_ at: Date, _ text: String) { lock.withLock { lines.append((at, text)) } }
    func finish() {
        lock.withLock {
            ended = true; lock.broadcast()
        }
    }
    func waitForEnd() { lock.withLock { while !ended { lock.wait() } } }
    var all: [(at: Date, text: String)] { lock.withLock { lines } }
}
