import Foundation
import WhaleOT
import WhaleProtocol

/// ``ServerStorage`` in one SQLite file, on SQLite's C interface: WAL journal, `synchronous = FULL`
/// (a committed transaction survives `kill -9` and power loss), a versioned schema migrated on open.
/// `inMemory()` is for throwaway runs (`--database :memory:`): same code, nothing on disk.
///
/// One connection does everything, behind a lock: the server writes from one group committer at a
/// time (``GroupCommitter``) and reads only when it starts. Files written through GRDB, which this
/// replaced, open unchanged: the same tables, and the same `grdb_migrations` table of applied versions.
public final class SQLiteStorage: ServerStorage, @unchecked Sendable {
    // @unchecked: `connection` is only touched with `lock` held.
    private let connection: SQLiteConnection
    private let lock = NSLock()
    private var insertNote: SQLiteStatement?
    private var insertRecord: SQLiteStatement?
    private let checkpointer: WALCheckpointer?
    public let path: String

    /// Opens (creating if needed) and migrates the database at `path`, with `synchronous` (FULL
    /// unless a test asks for less).
    public init(path: String, synchronous: SQLiteSynchronous = .full) throws {
        self.path = path
        connection = try SQLiteConnection(path: path)
        if path != ":memory:" {
            try connection.execute("PRAGMA journal_mode = WAL")
            // Checkpoints run beside the writer, not inside its commits (WALCheckpointer).
            try connection.execute("PRAGMA wal_autocheckpoint = 0")
        }
        // After the journal mode, and read back: the level is what makes an acknowledged op durable.
        try connection.execute("PRAGMA synchronous = \(synchronous.rawValue.uppercased())")
        let level = try Self.synchronousLevel(of: connection)
        guard level == synchronous.pragmaValue else {
            throw ServerStartError(
                message:
                    "SQLite runs with synchronous = \(level), not \(synchronous.rawValue) (\(synchronous.pragmaValue))")
        }
        try Self.migrate(connection)
        // The file's name is durable only once its directory is synced: SQLite syncs the
        // directory after creating a journal or WAL, never after creating the database itself,
        // and a power loss would otherwise take the whole new database with it.
        if path != ":memory:", synchronous != .off { try Self.syncDirectory(of: path) }
        // Started once the file exists in WAL mode and is migrated; it opens its connection on
        // its first turn, so it never holds a lock while the writer opens the file.
        checkpointer = path == ":memory:" ? nil : WALCheckpointer(path: path, synchronous: synchronous)
    }

    deinit { checkpointer?.stop() }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The connection's `PRAGMA synchronous` (0 off, 1 normal, 2 full).
    public func synchronousLevel() throws -> Int { try locked { try Self.synchronousLevel(of: connection) } }

    static func synchronousLevel(of connection: SQLiteConnection) throws -> Int {
        Int(try connection.rows("PRAGMA synchronous") { $0.integer(0) }.first ?? -1)
    }

    /// fsync of the directory holding `path`.
    static func syncDirectory(of path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let fd = open(directory, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { throw ServerStartError(message: "cannot open \(directory) to sync it: errno \(errno)") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw ServerStartError(message: "cannot sync \(directory): errno \(errno)") }
    }

    /// A database that lives only as long as this object.
    public static func inMemory() throws -> SQLiteStorage { try SQLiteStorage(path: ":memory:") }

    /// The schema, one migration per version, applied in order, each in its own transaction and noted in
    /// `grdb_migrations` (the name GRDB gave it, kept so that its files open unchanged). Never edit a shipped
    /// migration: add the next one.
    static let migrations: [(identifier: String, sql: String)] = [
        (
            "v1",
            // Every applied op (or history reset) of every note, in apply order; the model's records;
            // refresh tokens by their hash. The statements GRDB's migration wrote, word for word.
            """
            CREATE TABLE "note_log" ("seq" INTEGER PRIMARY KEY AUTOINCREMENT, "resource_id" TEXT NOT NULL, \
            "revision" INTEGER NOT NULL, "op" TEXT, "op_id" TEXT, "reset_text" TEXT);
            CREATE INDEX "note_log_on_resource_id" ON "note_log"("resource_id");
            CREATE TABLE "model_record" ("kind" TEXT NOT NULL, "id" TEXT NOT NULL, "body" TEXT NOT NULL, \
            PRIMARY KEY ("kind", "id"));
            CREATE TABLE "refresh_token" ("token_hash" TEXT PRIMARY KEY, "user_id" TEXT NOT NULL, \
            "expires_at" INTEGER NOT NULL);
            """
        )
    ]

    static func migrate(_ connection: SQLiteConnection) throws {
        try connection.execute("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        let applied = Set(try appliedMigrations(connection))
        for migration in migrations where !applied.contains(migration.identifier) {
            try connection.transaction {
                try connection.execute(migration.sql)
                try connection.prepare(#"INSERT INTO "grdb_migrations" ("identifier") VALUES (?)"#)
                    .execute([.text(migration.identifier)])
            }
        }
    }

    static func appliedMigrations(_ connection: SQLiteConnection) throws -> [String] {
        try connection.rows(#"SELECT "identifier" FROM "grdb_migrations" ORDER BY "identifier""#) { $0.text(0) ?? "" }
    }

    public func schemaVersion() throws -> Int { try locked { try Self.appliedMigrations(connection).count } }

    public func loadNotes(initialTexts: [String: String]) throws -> [PersistedDocument] {
        try locked {
            var documents: [String: PersistedDocument] = [:]
            var order: [String] = []
            let rows = try connection.prepare("SELECT resource_id, op, op_id, reset_text FROM note_log ORDER BY seq")
            while try rows.step() {
                let id = rows.text(0) ?? ""
                if documents[id] == nil {
                    documents[id] = PersistedDocument(resourceId: id, initialText: initialTexts[id] ?? "")
                    order.append(id)
                }
                let op = try rows.text(1).map { try Self.decodeOperation($0) }
                documents[id]!.append(
                    PersistEntry(resourceId: id, revision: 0, op: op, opId: rows.text(2), resetText: rows.text(3)))
            }
            return order.sorted().compactMap { documents[$0] }
        }
    }

    public func loadRecords() throws -> [StoredRecord] {
        try locked {
            try connection.rows("SELECT kind, id, body FROM model_record ORDER BY kind, id") {
                StoredRecord(kind: $0.text(0) ?? "", id: $0.text(1) ?? "", body: $0.text(2) ?? "")
            }
        }
    }

    public func loadRefreshTokens(now: Int64) throws -> [StoredRefreshToken] {
        try locked {
            try connection.rows(
                "SELECT token_hash, user_id, expires_at FROM refresh_token WHERE expires_at > ? ORDER BY token_hash",
                [.integer(now)]
            ) { StoredRefreshToken(tokenHash: $0.text(0) ?? "", userId: $0.text(1) ?? "", expiresAt: $0.integer(2)) }
        }
    }

    public func write(_ batch: StorageBatch) throws {
        guard !batch.isEmpty else { return }
        try locked {
            try connection.transaction {
                if !batch.noteEntries.isEmpty {
                    if insertNote == nil {
                        insertNote = try connection.prepare(
                            "INSERT INTO note_log (resource_id, revision, op, op_id, reset_text) VALUES (?, ?, ?, ?, ?)"
                        )
                    }
                    for entry in batch.noteEntries {
                        try insertNote!.execute([
                            .text(entry.resourceId), .integer(Int64(entry.revision)),
                            .text(entry.op.map(Self.encodeOperation)), .text(entry.opId), .text(entry.resetText),
                        ])
                    }
                }
                if !batch.records.isEmpty {
                    if insertRecord == nil {
                        insertRecord = try connection.prepare(
                            "INSERT OR REPLACE INTO model_record (kind, id, body) VALUES (?, ?, ?)")
                    }
                    for record in batch.records {
                        try insertRecord!.execute([.text(record.kind), .text(record.id), .text(record.body)])
                    }
                }
                for token in batch.refreshTokens {
                    try connection.prepare(
                        "INSERT OR REPLACE INTO refresh_token (token_hash, user_id, expires_at) VALUES (?, ?, ?)"
                    ).execute([.text(token.tokenHash), .text(token.userId), .integer(token.expiresAt)])
                }
            }
        }
    }

    /// The Whaler `n`/`s` form, written by hand: this runs once per acknowledged op.
    static func encodeOperation(_ op: WhaleOT.Operation) -> String {
        let wire = op.wire
        var out = "{\"n\":["
        out += wire.n.map(String.init).joined(separator: ",")
        out += "],\"s\":["
        out += wire.s.map(WireJSON.quoted).joined(separator: ",")
        out += "]}"
        return out
    }

    static func decodeOperation(_ text: String) throws -> WhaleOT.Operation {
        let wire = try JSONDecoder().decode(WireOperation.self, from: Data(text.utf8))
        return try wire.operation()
    }
}
