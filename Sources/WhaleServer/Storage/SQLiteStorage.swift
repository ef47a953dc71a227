import Foundation
import GRDB
import WhaleOT
import WhaleProtocol

/// ``ServerStorage`` in one SQLite file through GRDB: WAL journal, `synchronous = FULL` (a
/// committed transaction survives `kill -9` and power loss), a versioned schema migrated on open.
/// `inMemory()` is for throwaway runs (`--database :memory:`): same code, nothing on disk.
public final class SQLiteStorage: ServerStorage {
    private let writer: any DatabaseWriter
    private let checkpointer: WALCheckpointer?
    public let path: String

    /// Opens (creating if needed) and migrates the database at `path`, with `synchronous` (FULL
    /// unless a test asks for less).
    public init(path: String, synchronous: SQLiteSynchronous = .full) throws {
        var configuration = Configuration()
        let pragma = synchronous.rawValue.uppercased()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(pragma)")
            // Checkpoints run beside the writer, not inside its commits (WALCheckpointer).
            if path != ":memory:" { try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        }
        self.path = path
        if path == ":memory:" {
            writer = try DatabaseQueue(configuration: configuration)
        } else {
            let pool = try DatabasePool(path: path, configuration: configuration)
            // GRDB's pool switches its writer to `synchronous = NORMAL` when it sets up WAL, after
            // prepareDatabase ran: commits were then synced at checkpoints only, and a power loss
            // (docs/lazyfs.md) lost acknowledged ops. Set the level again on the writer, and check it.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(pragma)") }
            writer = pool
        }
        let level = try writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
        guard level == synchronous.pragmaValue else {
            throw ServerStartError(
                message:
                    "SQLite runs with synchronous = \(level), not \(synchronous.rawValue) (\(synchronous.pragmaValue))")
        }
        try Self.migrator.migrate(writer)
        // The file's name is durable only once its directory is synced: SQLite syncs the
        // directory after creating a journal or WAL, never after creating the database itself,
        // and a power loss would otherwise take the whole new database with it.
        if path != ":memory:", synchronous != .off { try Self.syncDirectory(of: path) }
        // Started once the file exists in WAL mode and is migrated; it opens its connection on
        // its first turn, so it never holds a lock while the writer opens the file.
        checkpointer = path == ":memory:" ? nil : WALCheckpointer(path: path, synchronous: synchronous)
    }

    deinit { checkpointer?.stop() }

    /// The writer connection's `PRAGMA synchronous` (0 off, 1 normal, 2 full).
    public func synchronousLevel() throws -> Int {
        try writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
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

    /// The schema, one migration per version. Never edit a shipped migration: add the next one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // Every applied op (or history reset) of every note, in apply order.
            try db.create(table: "note_log") { t in
                t.autoIncrementedPrimaryKey("seq")
                t.column("resource_id", .text).notNull().indexed()
                t.column("revision", .integer).notNull()
                t.column("op", .text)
                t.column("op_id", .text)
                t.column("reset_text", .text)
            }
            try db.create(table: "model_record") { t in
                t.column("kind", .text).notNull()
                t.column("id", .text).notNull()
                t.column("body", .text).notNull()
                t.primaryKey(["kind", "id"])
            }
            try db.create(table: "refresh_token") { t in
                t.column("token_hash", .text).primaryKey()
                t.column("user_id", .text).notNull()
                t.column("expires_at", .integer).notNull()
            }
        }
        return migrator
    }

    public func schemaVersion() throws -> Int {
        try writer.read { db in try Self.migrator.appliedIdentifiers(db).count }
    }

    public func loadNotes(initialTexts: [String: String]) throws -> [PersistedDocument] {
        try writer.read { db in
            var documents: [String: PersistedDocument] = [:]
            var order: [String] = []
            let rows = try Row.fetchCursor(
                db, sql: "SELECT resource_id, op, op_id, reset_text FROM note_log ORDER BY seq")
            while let row = try rows.next() {
                let id: String = row["resource_id"]
                if documents[id] == nil {
                    documents[id] = PersistedDocument(resourceId: id, initialText: initialTexts[id] ?? "")
                    order.append(id)
                }
                let opText: String? = row["op"]
                let op = try opText.map { try Self.decodeOperation($0) }
                documents[id]!.append(
                    PersistEntry(resourceId: id, revision: 0, op: op, opId: row["op_id"], resetText: row["reset_text"]))
            }
            return order.sorted().compactMap { documents[$0] }
        }
    }

    public func loadRecords() throws -> [StoredRecord] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT kind, id, body FROM model_record ORDER BY kind, id").map {
                StoredRecord(kind: $0["kind"], id: $0["id"], body: $0["body"])
            }
        }
    }

    public func loadRefreshTokens(now: Int64) throws -> [StoredRefreshToken] {
        try writer.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT token_hash, user_id, expires_at FROM refresh_token WHERE expires_at > ? ORDER BY token_hash",
                arguments: [now]
            ).map {
                StoredRefreshToken(tokenHash: $0["token_hash"], userId: $0["user_id"], expiresAt: $0["expires_at"])
            }
        }
    }

    public func write(_ batch: StorageBatch) throws {
        guard !batch.isEmpty else { return }
        try writer.write { db in
            if !batch.noteEntries.isEmpty {
                let statement = try db.cachedStatement(
                    sql: "INSERT INTO note_log (resource_id, revision, op, op_id, reset_text) VALUES (?, ?, ?, ?, ?)")
                for entry in batch.noteEntries {
                    let op: String? = entry.op.map(Self.encodeOperation)
                    try statement.execute(arguments: [
                        entry.resourceId, entry.revision, op, entry.opId, entry.resetText,
                    ])
                }
            }
            if !batch.records.isEmpty {
                let statement = try db.cachedStatement(
                    sql: "INSERT OR REPLACE INTO model_record (kind, id, body) VALUES (?, ?, ?)")
                for record in batch.records {
                    try statement.execute(arguments: [record.kind, record.id, record.body])
                }
            }
            for token in batch.refreshTokens {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO refresh_token (token_hash, user_id, expires_at) VALUES (?, ?, ?)",
                    arguments: [token.tokenHash, token.userId, token.expiresAt])
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
