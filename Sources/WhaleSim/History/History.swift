import WhaleOT

/// Everything that happened in one run, in order, plus what the checkers need to read it
/// (which client edits which document, the initial texts, the protocol version).
///
/// The ``hash`` is FNV-1a over a canonical serialization of every entry, fed as entries are
/// appended, so two runs with the same seed and options give the same hash and a one-event
/// difference anywhere changes it.
public struct History: Sendable {
    public var clientNames: [String]
    /// The document each client edits.
    public var clientDocuments: [Int]
    public var documentNames: [String]
    public var initialTexts: [String]
    public var protocolVersion: Int
    public private(set) var entries: [HistoryEntry] = []
    private var hasher = FNV1a()

    public init(clientNames: [String], clientDocuments: [Int], documentNames: [String], initialTexts: [String], protocolVersion: Int) {
        self.clientNames = clientNames
        self.clientDocuments = clientDocuments
        self.documentNames = documentNames
        self.initialTexts = initialTexts
        self.protocolVersion = protocolVersion
        for name in clientNames { hasher.feed(name) }
        for doc in clientDocuments { hasher.feed(doc) }
        for text in initialTexts { hasher.feed(text) }
        hasher.feed(protocolVersion)
    }

    public mutating func append(_ event: HistoryEvent, at time: SimTime) {
        hasher.feed(time)
        hasher.feed(event)
        entries.append(HistoryEntry(time: time, event: event))
    }

    /// The stable hash of the run (16 hex digits).
    public var hash: String { hasher.hex }

    /// The `error` code of a client whose copy of its note stopped matching the server's at the
    /// same revision (``ClientSession/Action/diverged(_:)``): the convergence checker's evidence.
    public static let divergedCode = "diverged"

    /// Clients editing `document`, in index order.
    public func clients(of document: Int) -> [Int] {
        clientDocuments.indices.filter { clientDocuments[$0] == document }
    }
}
