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
    private var stored: [HistoryEntry] = []
    /// Set for a packed history (a live run's): entries kept as bytes, decoded as they are read.
    private var packed: PackedEvents?
    private var hasher = FNV1a()

    /// Every entry, in order. A packed history decodes them all into an array here: read
    /// ``events`` instead where one pass in order will do (the checkers do).
    public var entries: [HistoryEntry] { packed.map { Array($0) } ?? stored }

    /// The entries in order, one at a time (a packed history decodes each as it goes).
    public var events: HistoryEvents { HistoryEvents(packed.map { .packed($0) } ?? .array(stored)) }

    /// How many entries the history holds.
    public var count: Int { packed?.count ?? stored.count }

    /// Whether the entries are packed (``PackedEvents``).
    public var isPacked: Bool { packed != nil }

    /// The bytes a packed history holds (nil for an array of entries).
    public var packedBytes: Int? { packed?.byteCount }

    /// `packed`: keep the entries as bytes (``PackedEvents``), for a history as long as a live
    /// run's; the simulator's histories are arrays.
    public init(
        clientNames: [String], clientDocuments: [Int], documentNames: [String], initialTexts: [String],
        protocolVersion: Int,
        packed: Bool = false
    ) {
        if packed { self.packed = PackedEvents() }
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
        if packed != nil {
            packed!.append(HistoryEntry(time: time, event: event))
        } else {
            stored.append(HistoryEntry(time: time, event: event))
        }
    }

    /// The stable hash of the run (16 hex digits).
    public var hash: String { hasher.hex }

    /// The `error` code of a client whose copy of its note stopped matching the server's at the
    /// same revision (``ClientSession/Action/diverged(_:)``): the convergence checker's evidence.
    public static let divergedCode = "diverged"

    /// The same names and texts with no entries yet, packed or not as this one is.
    public func emptyCopy() -> History {
        History(
            clientNames: clientNames, clientDocuments: clientDocuments, documentNames: documentNames,
            initialTexts: initialTexts, protocolVersion: protocolVersion, packed: isPacked)
    }

    /// Clients editing `document`, in index order.
    public func clients(of document: Int) -> [Int] {
        clientDocuments.indices.filter { clientDocuments[$0] == document }
    }
}

/// A history's entries read in order, whether it keeps them in an array or packed.
public struct HistoryEvents: Sequence, Sendable {
    enum Storage: Sendable {
        case array([HistoryEntry])
        case packed(PackedEvents)
    }
    let storage: Storage
    init(_ storage: Storage) { self.storage = storage }

    public var count: Int {
        switch storage {
        case .array(let a): a.count
        case .packed(let p): p.count
        }
    }

    public func makeIterator() -> Iterator {
        switch storage {
        case .array(let a): Iterator(array: a.makeIterator(), packed: nil)
        case .packed(let p): Iterator(array: nil, packed: p.makeIterator())
        }
    }

    public struct Iterator: IteratorProtocol {
        var array: IndexingIterator<[HistoryEntry]>?
        var packed: PackedEvents.Iterator?
        public mutating func next() -> HistoryEntry? {
            if array != nil { return array!.next() }
            return packed!.next()
        }
    }
}
