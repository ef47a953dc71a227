import NIOConcurrencyHelpers
import WhaleSim

/// The live run's history, in the simulator's form (`HistoryEvent`s with their time in ms),
/// so the simulator's checkers read it unchanged. Appends are serialized by one lock and
/// stamped under it, so the order of the history is the order things were seen. Events are
/// packed as they come (``PackedEvents``, about 8 bytes an event instead of a hundred-odd), so a
/// long run's recorder does not grow the runner's memory by the length of the run.
///
/// A note that already had a history when the run began (a server that outlives runs) has a
/// baseline: its revision and text then. The history counts that note's revisions from the
/// baseline and starts from its text (``HistoryEvent/rebased(document:base:)``), so the
/// checkers judge what this run did; a note event at the start says where each note began.
public final class LiveRecorder: Sendable {
    struct State {
        var packed = PackedEvents()
        /// Events learned late and placed by their time when the history is read (``record(_:atMs:)``).
        var late: [(Int, HistoryEvent)] = []
        var baseRevisions: [Int]
        var baseTexts: [String]
        var clientNames: [String] = []
        var clientDocuments: [Int] = []
        var messages = 0
        var edits = 0
    }

    private let state: NIOLockedValueBox<State>
    public let clock: RunClock
    public let documentNames: [String]
    public let initialTexts: [String]
    public let protocolVersion: Int

    public init(clock: RunClock, documentNames: [String], initialTexts: [String], protocolVersion: Int) {
        self.clock = clock
        self.documentNames = documentNames
        self.initialTexts = initialTexts
        self.protocolVersion = protocolVersion
        state = NIOLockedValueBox(State(baseRevisions: documentNames.map { _ in 0 }, baseTexts: initialTexts))
    }

    /// The note was at `revision` with `text` when this run's recorder first joined it.
    public func setBaseline(document: Int, revision: Int, text: String) {
        state.withLockedValue { s in
            s.baseRevisions[document] = revision
            s.baseTexts[document] = text
        }
    }

    /// Each note's revision and text when the run began.
    public var baselines: [(revision: Int, text: String)] {
        state.withLockedValue { s in Array(zip(s.baseRevisions, s.baseTexts)).map { ($0.0, $0.1) } }
    }

    /// Registers a client editing `document`; returns its index in the history.
    public func addClient(name: String, document: Int) -> Int {
        state.withLockedValue { s in
            s.clientNames.append(name)
            s.clientDocuments.append(document)
            return s.clientNames.count - 1
        }
    }

    public func record(_ event: HistoryEvent) {
        let t = clock.nowMs
        state.withLockedValue { s in
            s.packed.append(HistoryEntry(time: t, event: event))
            if case .edit = event { s.edits += 1 }
        }
    }

    /// Records something that happened at run time `ms` but is learned later (the server's
    /// backpressure marks, read from its log after the load): it goes where `ms` puts it, after
    /// everything recorded at or before `ms`.
    public func record(_ event: HistoryEvent, atMs ms: Int) {
        state.withLockedValue { s in
            var i = s.late.count
            while i > 0, s.late[i - 1].0 > ms { i -= 1 }
            s.late.insert((ms, event), at: i)
        }
    }

    /// The names of the clients registered so far, by history index.
    public var clientNames: [String] { state.withLockedValue { $0.clientNames } }

    /// Counts a websocket message either way (the liveness checker's loop bound).
    public func message(_ n: Int = 1) { state.withLockedValue { $0.messages += n } }

    public var clientCount: Int { state.withLockedValue { $0.clientNames.count } }
    public var edits: Int { state.withLockedValue { $0.edits } }
    public var messages: Int { state.withLockedValue { $0.messages } }

    /// The history so far, as the checkers and the record want it (packed, like the recorder's).
    public func history() -> History {
        let s = state.withLockedValue { $0 }
        var h = History(
            clientNames: s.clientNames, clientDocuments: s.clientDocuments, documentNames: documentNames,
            initialTexts: s.baseTexts, protocolVersion: protocolVersion, packed: true)
        let started = s.baseRevisions.indices.filter { s.baseRevisions[$0] > 0 }
        if !started.isEmpty {
            let named = started.prefix(5).map { "\(documentNames[$0]) at revision \(s.baseRevisions[$0])" }.joined(
                separator: ", ")
            h.append(
                .note(
                    "\(started.count) note\(started.count == 1 ? "" : "s") already had a history when the run began (\(named)\(started.count > 5 ? ", …" : "")); their revisions here count from there"
                ), at: 0)
        }
        func add(_ e: HistoryEvent, at t: Int) {
            h.append(
                started.isEmpty ? e : e.rebased(document: { s.clientDocuments[$0] }, base: { s.baseRevisions[$0] }),
                at: t)
        }
        // A late event goes after everything recorded at or before its time.
        var late = s.late[...]
        for entry in s.packed {
            while let first = late.first, first.0 < entry.time {
                add(first.1, at: first.0)
                late = late.dropFirst()
            }
            add(entry.event, at: entry.time)
        }
        for (t, e) in late { add(e, at: t) }
        return h
    }
}
