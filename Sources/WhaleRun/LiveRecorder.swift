import NIOConcurrencyHelpers
import WhaleSim

/// The live run's history, in the simulator's form (`HistoryEvent`s with their time in ms),
/// so the simulator's checkers read it unchanged. Appends are serialized by one lock and
/// stamped under it, so the order of the history is the order things were seen.
public final class LiveRecorder: Sendable {
    struct State {
        var entries: [(Int, HistoryEvent)] = []
        var clientNames: [String] = []
        var clientDocuments: [Int] = []
        var messages = 0
        var edits = 0
    }

    private let state = NIOLockedValueBox(State())
    public let clock: RunClock
    public let documentNames: [String]
    public let initialTexts: [String]
    public let protocolVersion: Int

    public init(clock: RunClock, documentNames: [String], initialTexts: [String], protocolVersion: Int) {
        self.clock = clock
        self.documentNames = documentNames
        self.initialTexts = initialTexts
        self.protocolVersion = protocolVersion
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
            s.entries.append((t, event))
            if case .edit = event { s.edits += 1 }
        }
    }

    /// Counts a websocket message either way (the liveness checker's loop bound).
    public func message(_ n: Int = 1) { state.withLockedValue { $0.messages += n } }

    public var clientCount: Int { state.withLockedValue { $0.clientNames.count } }
    public var edits: Int { state.withLockedValue { $0.edits } }
    public var messages: Int { state.withLockedValue { $0.messages } }

    /// The history so far, as the checkers and `history.jsonl` want it.
    public func history() -> History {
        let s = state.withLockedValue { $0 }
        var h = History(clientNames: s.clientNames, clientDocuments: s.clientDocuments, documentNames: documentNames,
                        initialTexts: initialTexts, protocolVersion: protocolVersion)
        for (t, e) in s.entries { h.append(e, at: t) }
        return h
    }
}
