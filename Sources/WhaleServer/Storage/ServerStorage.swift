import WhaleProtocol

/// Where the reference server keeps everything durable: note histories (every applied op, so a
/// restart rebuilds each document exactly), model records and refresh tokens. One write is one
/// transaction; the ``GroupCommitter`` batches many callers into one.
///
/// ```swift
/// let storage = try SQLiteStorage(path: "whalesim.sqlite")     // or SQLiteStorage.inMemory()
/// try storage.write(StorageBatch(noteEntries: [entry]))
/// let documents = try storage.loadNotes()
/// ```
public protocol ServerStorage: Sendable {
    /// Every note document with its whole history, in the order the ops were applied; a document
    /// starts from `initialTexts[id]` (the seed's note text) or empty.
    func loadNotes(initialTexts: [String: String]) throws -> [PersistedDocument]
    /// Every stored model record (latest version of each kind/id).
    func loadRecords() throws -> [StoredRecord]
    /// Every refresh token not yet expired at `now` (seconds since 1970).
    func loadRefreshTokens(now: Int64) throws -> [StoredRefreshToken]
    /// Writes the batch durably in one transaction: all of it or none.
    func write(_ batch: StorageBatch) throws
    /// The schema version the database is at after migrations.
    func schemaVersion() throws -> Int
}

/// A model record as stored: its kind (`account`, `contact`, ...), id and JSON body.
public struct StoredRecord: Sendable, Hashable {
    public var kind: String
    public var id: String
    public var body: String
    public init(kind: String, id: String, body: String) {
        self.kind = kind
        self.id = id
        self.body = body
    }
}

/// A refresh token: only its SHA-256 is stored, so a copy of the database cannot sign anyone in.
public struct StoredRefreshToken: Sendable, Hashable {
    public var tokenHash: String
    public var userId: String
    public var expiresAt: Int64
    public init(tokenHash: String, userId: String, expiresAt: Int64) {
        self.tokenHash = tokenHash
        self.userId = userId
        self.expiresAt = expiresAt
    }
}

/// What one transaction writes.
public struct StorageBatch: Sendable {
    public var noteEntries: [PersistEntry] = []
    public var records: [StoredRecord] = []
    public var refreshTokens: [StoredRefreshToken] = []
    public init(
        noteEntries: [PersistEntry] = [], records: [StoredRecord] = [], refreshTokens: [StoredRefreshToken] = []
    ) {
        self.noteEntries = noteEntries
        self.records = records
        self.refreshTokens = refreshTokens
    }
    public var isEmpty: Bool { noteEntries.isEmpty && records.isEmpty && refreshTokens.isEmpty }
    mutating func append(_ other: StorageBatch) {
        noteEntries += other.noteEntries
        records += other.records
        refreshTokens += other.refreshTokens
    }
}
