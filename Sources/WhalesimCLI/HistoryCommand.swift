import ArgumentParser
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import WhaleRecord

/// `whalesim history RUN_DIR`: the run's history as JSON lines on stdout, one event a line,
/// exactly the lines `history.jsonl` held before runs wrote the compact `history.whr`
/// (docs/run-record.md, "The history file"). Reads either form, a line at a time.
///
/// ```
/// whalesim history Reports/latest | jq -c 'select(.type == "error")'
/// whalesim history Reports/live-demo/latest --shrunk | head
/// ```
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Print a run directory's history as JSON lines.",
        discussion: """
            RUN_DIR is a run directory (a `latest` link works) or a history file itself. The lines are \
            those of docs/run-record.md's history table. Exit codes: 0 printed (also when the reader \
            stops early, as `head` does), 66 no such directory or no history in it (or no shrunk \
            history with --shrunk), 64 a history file that is not one, of an unknown format version, \
            truncated or damaged (the message says which; the lines before the damage are printed).

            Examples:
              whalesim simulate convergence-smoke --seed 7
              whalesim history Reports/convergence-smoke/latest
            """
    )

    /// sysexits' EX_NOINPUT: the input is not there.
    static let noInput = ExitCode(66)

    @Argument(help: "A run directory, or a history file (history.whr or history.jsonl).")
    var runDirectory: String

    @Flag(help: "The shrunk run's history (a failing simulator run that shrank), not the run's own.")
    var shrunk = false

    func run() throws {
        let path: String
        do { path = try Self.historyPath(runDirectory, shrunk: shrunk) } catch {
            printError("whalesim: history: \(error.message)")
            throw Self.noInput
        }
        signal(SIGPIPE, SIG_IGN)  // a closed pipe is EPIPE from write(2), handled below
        var out = StandardOutput()
        do {
            try HistoryFiles.forEachLine(path) { line in
                guard !line.isEmpty else { return }
                try out.write(line)
            }
            try out.flush()
        } catch is StandardOutput.Closed {
            return  // `| head`: the reader has what it wanted
        } catch let e as RecordFileError {
            try? out.flush()
            printError("whalesim: history: \(e.message)")
            if case .missing = e { throw Self.noInput }
            throw ExitStatus.badInput
        }
    }

    /// The history file `argument` names: itself when it is a file, else the run directory's
    /// history (or with `shrunk`, the one `run.json`'s `shrunk.history` names).
    static func historyPath(_ argument: String, shrunk: Bool) throws(RecordFileError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
            throw .missing("\(argument): no such run directory or history file")
        }
        guard isDirectory.boolValue else {
            if shrunk { throw .missing("\(argument): --shrunk needs a run directory, not a file") }
            return argument
        }
        guard shrunk else { return try HistoryFiles.history(in: argument) }
        let recordPath = (argument as NSString).appendingPathComponent("run.json")
        if let data = FileManager.default.contents(atPath: recordPath),
            let record = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let name = (record["shrunk"] as? [String: Any])?["history"] as? String
        {
            let path = (argument as NSString).appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: path) else {
                throw .missing("\(path): missing (run.json names it as the shrunk history)")
            }
            return path
        }
        for name in [HistoryFiles.shrunkCompactName, "shrunk-history.jsonl"] {
            let path = (argument as NSString).appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        throw .missing("\(argument): no shrunk history (only a failing simulator run that shrank has one)")
    }
}

/// Standard output through write(2) in 64 KB pieces; a reader that went away is ``Closed``.
private struct StandardOutput {
    struct Closed: Error {}
    private var buffer: [UInt8] = []

    mutating func write(_ line: [UInt8]) throws {
        buffer += line
        buffer.append(0x0A)
        if buffer.count >= 64 * 1024 { try flush() }
    }

    mutating func flush() throws {
        var offset = 0
        while offset < buffer.count {
            let n = buffer[offset...].withUnsafeBytes { systemWrite(1, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                buffer.removeAll()
                if errno == EPIPE { throw Closed() }
                throw RecordFileError.io("standard output: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

#if canImport(Glibc)
    private let systemWrite = Glibc.write
#elseif canImport(Darwin)
    private let systemWrite = Darwin.write
#endif
