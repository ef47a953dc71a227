import Foundation

/// What `whalesim reproduce` needs from a run's `run.json` (docs/run-record.md): the options a
/// reproducer keeps (protocol, faults, checkers), each note with its clients and starting text,
/// the verdicts with their evidence and the run's own replay command.
public struct LiveRecordSummary: Sendable {
    public struct Note: Sendable, Hashable {
        public var name: String
        public var clients: [String]
        /// The note's text when the run began (empty for a fresh note).
        public var initialText: String
    }

    public var scenario: String
    public var seed: UInt64
    /// `ms` for a live run, `ticks` for a simulated one.
    public var timeUnit: String
    public var protocolVersion: Int
    public var faults: [String]
    /// The storage's sync level (`options.storageSynchronous`; `full` when absent).
    public var storageSync: StorageSync = .full
    public var checkers: [CheckerName]
    public var notes: [Note]
    public var results: [CheckResult]
    public var replayCommand: String
    /// The server the run loaded: a URL for a server whalesim did not provide, `embedded` (or
    /// absent, for a simulated run) for whalesim's own.
    public var server: String?

    /// The side of the run that was not whalesim's own code, where a defect the record cannot
    /// explain must sit: the server, when the run loaded one by URL (whalesim's virtual clients
    /// are its reference clients); nil when both sides were whalesim's.
    public var foreignSide: FaultDiagnosis.Side? {
        guard let server, !server.isEmpty, server != "embedded" else { return nil }
        return .server
    }

    /// Reads `run.json`'s text; `source` names the file in errors.
    public static func read(_ text: String, source: String) throws(ReproduceError) -> LiveRecordSummary {
        guard let o = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            throw ReproduceError("\(source): not a JSON object")
        }
        func need<T>(_ key: String, _ type: T.Type) throws(ReproduceError) -> T {
            guard let v = o[key] as? T else { throw ReproduceError("\(source): missing or malformed `\(key)`") }
            return v
        }
        let options = try need("options", [String: Any].self)
        let protocolText =
            (options["protocol"] as? String) ?? (options["protocolVersion"] as? NSNumber)?.stringValue ?? "2"
        guard let version = Int(protocolText), (1...2).contains(version) else {
            throw ReproduceError("\(source): options.protocol \(protocolText) is not 1 or 2")
        }
        var faults: [String] = []
        if let f = options["faults"] as? String {
            faults = f.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        } else if let f = options["faults"] as? [String] {
            faults = f
        }
        // A windowed fault is written `name at [..] for ..`: a reproducer keeps it for the whole script.
        faults = faults.map { String($0.split(separator: " ").first ?? Substring($0)) }
        var checkers: [CheckerName] = []
        if let c = options["checkers"] as? String {
            checkers = c.split(separator: ",").compactMap {
                CheckerName(rawValue: $0.trimmingCharacters(in: .whitespaces))
            }
        } else if let c = options["checkers"] as? [String] {
            checkers = c.compactMap(CheckerName.init(rawValue:))
        }
        var results: [CheckResult] = []
        for v in try need("verdicts", [[String: Any]].self) {
            guard let name = v["checker"] as? String, let checker = CheckerName(rawValue: name),
                let verdictText = v["verdict"] as? String, let verdict = Verdict(rawValue: verdictText)
            else {
                throw ReproduceError("\(source): a verdict without a known checker and verdict")
            }
            results.append(CheckResult(checker: checker, verdict: verdict, evidence: v["evidence"] as? [String] ?? []))
        }
        if checkers.isEmpty { checkers = results.map(\.checker) }
        var notes: [Note] = []
        for d in try need("documents", [[String: Any]].self) {
            guard let name = d["name"] as? String, let clients = d["clients"] as? [String] else {
                throw ReproduceError("\(source): a document without name or clients")
            }
            notes.append(Note(name: name, clients: clients, initialText: d["initialText"] as? String ?? ""))
        }
        var summary = LiveRecordSummary(
            scenario: try need("scenario", String.self), seed: (o["seed"] as? NSNumber)?.uint64Value ?? 0,
            timeUnit: o["timeUnit"] as? String ?? "ticks", protocolVersion: version, faults: faults,
            checkers: checkers, notes: notes, results: results, replayCommand: o["replayCommand"] as? String ?? "")
        summary.server = options["server"] as? String
        if let level = options["storageSynchronous"] as? String {
            guard let sync = StorageSync(rawValue: level) else {
                throw ReproduceError("\(source): options.storageSynchronous \(level) is not full, normal or off")
            }
            summary.storageSync = sync
        }
        return summary
    }

    /// The note to reproduce and the checker that failed on it: `requested` (a note's name) or the
    /// note the first invalid checker's first evidence line names.
    public func failingNote(requested: String?) throws(ReproduceError) -> (
        note: Note, checker: CheckerName, evidence: [String]
    ) {
        let invalid = results.filter { $0.verdict == .invalid }
        guard !invalid.isEmpty else {
            throw ReproduceError(
                "the run has no violation (verdict \(Verdict.merge(results.map(\.verdict)).rawValue)): nothing to reproduce"
            )
        }
        if let requested {
            guard let note = notes.first(where: { $0.name == requested }) else {
                throw ReproduceError(
                    "--note \(requested): no such note (notes: \(notes.map(\.name).joined(separator: ", ")))")
            }
            let named = invalid.first { r in r.evidence.contains { Self.mentions($0, note.name) } } ?? invalid[0]
            return (
                note, named.checker,
                named.evidence.filter { line in
                    Self.mentions(line, note.name) || !notes.contains { n in Self.mentions(line, n.name) }
                }
            )
        }
        for r in invalid {
            for line in r.evidence {
                if let note = notes.first(where: { Self.mentions(line, $0.name) }) {
                    return (
                        note, r.checker,
                        r.evidence.filter { line in
                            Self.mentions(line, note.name) || !notes.contains { n in Self.mentions(line, n.name) }
                        }
                    )
                }
            }
        }
        // No evidence line names a note (a client's diverged copy names its client): the note of the
        // first client named, else the only note.
        for r in invalid {
            for line in r.evidence {
                if let note = notes.first(where: { n in n.clients.contains { Self.mentions(line, $0) } }) {
                    return (note, r.checker, r.evidence)
                }
            }
        }
        guard notes.count == 1 else {
            throw ReproduceError(
                "no evidence line names a note; give --note (notes: \(notes.map(\.name).joined(separator: ", ")))")
        }
        return (notes[0], invalid[0].checker, invalid[0].evidence)
    }

    /// Whether `line` names `name` as a whole token (so `note-1` is not found in `note-10`).
    static func mentions(_ line: String, _ name: String) -> Bool {
        var search = line[...]
        while let range = search.range(of: name) {
            let before = range.lowerBound == line.startIndex ? nil : line[line.index(before: range.lowerBound)]
            let after = range.upperBound == line.endIndex ? nil : line[range.upperBound]
            func isName(_ c: Character?) -> Bool {
                c.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." } ?? false
            }
            if !isName(before), !(isName(after) && after != ".") { return true }
            search = line[range.upperBound...]
        }
        return false
    }
}

/// A run record `whalesim reproduce` cannot use, and why.
public struct ReproduceError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
