import Foundation
import NIOConcurrencyHelpers
import WhaleSession
import WhaleSim

/// The recorded sessions a live run's users play (`workload: {replay: FILE}`; docs/sessions.md),
/// one each, round robin, and what they made of them, request kind by kind.
public final class ReplayPlan: Sendable {
    public let file: String
    public let speed: Double
    private let endBox = NIOLockedValueBox<Int?>(nil)
    let scripts: [ReplayScript]
    private let made = NIOLockedValueBox<[String: [Int]]>([:])
    private let failures = NIOLockedValueBox<[String: (count: Int, last: String)]>([:])
    private let users = NIOLockedValueBox(0)
    private let done = NIOLockedValueBox(0)
    /// The load ends once `users` users have played their sessions (a replay's own scenario),
    /// rather than at its duration, which then only bounds it.
    public var endWhenPlayedBy: Int? {
        get { endBox.withLockedValue { $0 } }
        set { endBox.withLockedValue { $0 = newValue } }
    }

    init(file: String, speed: Double, scripts: [ReplayScript]) {
        self.file = file
        self.speed = speed
        self.scripts = scripts
    }

    /// Reads and checks the session file; a file with no session to play is refused.
    public static func load(_ spec: ReplaySpec) throws(SessionFileError) -> ReplayPlan {
        let recording = try SessionRecording.read(path: spec.file)
        var sessions = recording.bySession.filter { $0.session != "s0" }
        if sessions.isEmpty { sessions = recording.bySession }
        let scripts = sessions.map { ReplayScript.make(session: $0.session, events: $0.events) }
        guard scripts.contains(where: { !$0.steps.isEmpty }) else {
            throw SessionFileError(
                path: spec.file, offset: nil,
                "no session in it does anything a replay can play (no note edits, selections or GraphQL requests)")
        }
        return ReplayPlan(file: spec.file, speed: spec.speed, scripts: scripts)
    }

    /// The session user `index` plays.
    func script(for index: Int) -> ReplayScript {
        users.withLockedValue { $0 += 1 }
        return scripts[index % scripts.count]
    }

    /// A user played its whole session.
    func finished() { done.withLockedValue { $0 += 1 } }

    /// Whether `endWhenPlayedBy` users have played their sessions.
    var allPlayed: Bool { endWhenPlayedBy.map { n in done.withLockedValue { $0 } >= n } ?? false }

    /// The longest session at the replay's speed, ms: how long a run needs to play them all.
    public var longestMs: Int { Int(Double(scripts.map(\.spanMs).max() ?? 0) / speed) }

    /// A request (or action) of `kind` the replay made, with its latency when it has one.
    func made(_ kind: String, ms: Int? = nil) {
        made.withLockedValue { $0[kind, default: []].append(ms ?? -1) }
    }

    /// A request of `kind` the replay made that failed (the server refused it, or no answer).
    func failed(_ kind: String, _ why: String) {
        failures.withLockedValue { $0[kind] = (($0[kind]?.count ?? 0) + 1, why) }
    }

    /// The recorded mix beside the replayed one, kind by kind, for `run.json`.
    func record() -> ReplayRecord {
        let madeNow = made.withLockedValue { $0 }
        let failedNow = failures.withLockedValue { $0 }
        let players = users.withLockedValue { $0 }
        var kinds: Set<String> = Set(madeNow.keys).union(failedNow.keys)
        for s in scripts { kinds.formUnion(s.recordedMix.keys) }
        // What the users should have made: each user's session's recorded mix, less what is not replayed.
        var expected: [String: Int] = [:]
        var recorded: [String: Int] = [:]
        var recordedMs: [String: [Int]] = [:]
        var why: [String: String] = [:]
        for s in scripts {
            for (k, n) in s.recordedMix { recorded[k, default: 0] += n }
            for (k, v) in s.recordedLatencies { recordedMs[k, default: []] += v }
            for (k, v) in s.notReplayed { why[k] = v.why }
        }
        for i in 0..<players {
            let s = scripts[i % scripts.count]
            for (k, n) in s.recordedMix where s.notReplayed[k] == nil { expected[k, default: 0] += n }
        }
        func median(_ v: [Int]) -> Int? {
            let x = v.filter { $0 >= 0 }.sorted()
            return x.isEmpty ? nil : x[x.count / 2]
        }
        let rows = kinds.sorted().map { k in
            ReplayRecord.Kind(
                kind: k, recorded: recorded[k] ?? 0, expected: expected[k] ?? 0, replayed: madeNow[k]?.count ?? 0,
                recordedP50Ms: median(recordedMs[k] ?? []), replayedP50Ms: median(madeNow[k] ?? []),
                notReplayed: why[k],
                failed: failedNow[k]?.count, lastFailure: failedNow[k]?.last)
        }
        return ReplayRecord(
            file: file, speed: speed, sessions: scripts.count, users: players, kinds: rows)
    }
}

/// `run.json`'s `replay`: the session file, how many sessions and users, and per request kind
/// how many the recording made, how many the users should have made (their sessions' counts,
/// less what is not replayed) and made, with median latencies; a kind not replayed says why.
public struct ReplayRecord: Codable, Sendable, Equatable {
    public struct Kind: Codable, Sendable, Equatable {
        public var kind: String
        public var recorded: Int
        public var expected: Int
        public var replayed: Int
        public var recordedP50Ms: Int?
        public var replayedP50Ms: Int?
        public var notReplayed: String?
        /// Replayed requests of the kind that failed, and the last failure's words.
        public var failed: Int?
        public var lastFailure: String?
    }
    public var file: String
    public var speed: Double
    public var sessions: Int
    public var users: Int
    public var kinds: [Kind]
}
