import CSQLite

/// One SQLite connection, used by one thread at a time (its owner serializes the calls): SQL run
/// whole, prepared statements with text and integer parameters, transactions. What the reference
/// server's storage needs of SQLite, and nothing more.
final class SQLiteConnection {
    private var handle: OpaquePointer?
    let path: String

    /// Opens (creating if needed) the database at `path`; `:memory:` is a private in-memory database.
    /// `busyTimeoutMilliseconds` is how long a statement waits for another connection's lock.
    init(path: String, busyTimeoutMilliseconds: Int32 = 0) throws(SQLiteError) {
        self.path = path
        // NOMUTEX: the owner serializes, so SQLite's own per-call mutex would only cost.
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK else {
            let error = SQLiteError(
                code: code, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "", sql: "")
            sqlite3_close_v2(handle)
            handle = nil
            throw error
        }
        sqlite3_extended_result_codes(handle, 1)
        if busyTimeoutMilliseconds > 0 { sqlite3_busy_timeout(handle, busyTimeoutMilliseconds) }
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs `sql` (one or more statements, no parameters) to the end.
    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, message: message.map { String(cString: $0) } ?? errorMessage, sql: sql)
        }
    }

    /// `sql` compiled once, to run many times.
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else { throw SQLiteError(code: code, message: errorMessage, sql: sql) }
        return SQLiteStatement(statement, connection: self, sql: sql)
    }

    /// The rows `sql` gives for `arguments`, each read by `row`.
    func rows<T>(_ sql: String, _ arguments: [SQLiteValue] = [], _ row: (SQLiteStatement) -> T) throws(SQLiteError)
        -> [T]
    {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        var out: [T] = []
        while try statement.step() { out.append(row(statement)) }
        return out
    }

    /// `body` in one transaction: `BEGIN IMMEDIATE` (the write lock at once, so the commit cannot
    /// fail on a lock taken meanwhile), committed if it returns, rolled back if it throws.
    func transaction(_ body: () throws -> Void) throws {
        try execute("BEGIN IMMEDIATE")
        do {
            try body()
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// A passive checkpoint of the write-ahead log: copies what it can without waiting for anyone.
    func checkpointPassive() throws(SQLiteError) {
        let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, message: errorMessage, sql: "checkpoint") }
    }

    fileprivate var errorMessage: String { String(cString: sqlite3_errmsg(handle)) }
}

/// A parameter or a column's value: what the storage writes and reads.
enum SQLiteValue {
    case text(String?)
    case integer(Int64)
}

/// A compiled statement of one ``SQLiteConnection``.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private let connection: SQLiteConnection
    private let sql: String

    fileprivate init(_ statement: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.statement = statement
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(statement) }

    /// Binds `values` to the parameters in order, after resetting the statement.
    func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .integer(let number): code = sqlite3_bind_int64(statement, index, number)
            case .text(nil): code = sqlite3_bind_null(statement, index)
            case .text(let text?):
                // The length in bytes, so a U+0000 in a note is kept; SQLITE_TRANSIENT (a C macro Swift
                // cannot import): SQLite copies the bytes before the call returns.
                let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
                code = sqlite3_bind_text(statement, index, text, Int32(text.utf8.count), transient)
            }
            guard code == SQLITE_OK else { throw SQLiteError(code: code, message: connection.errorMessage, sql: sql) }
        }
    }

    /// Runs to the next row: true with a row to read, false when done.
    func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw SQLiteError(code: code, message: connection.errorMessage, sql: sql)
        }
    }

    /// Binds `values` and runs to the end.
    func execute(_ values: [SQLiteValue]) throws(SQLiteError) {
        try bind(values)
        while try step() {}
    }

    /// Column `index` of the current row as text; nil for NULL.
    func text(_ index: Int32) -> String? {
        guard let bytes = sqlite3_column_text(statement, index) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Column `index` of the current row as an integer (0 for NULL).
    func integer(_ index: Int32) -> Int64 { sqlite3_column_int64(statement, index) }
}

/// What SQLite answered, with the statement that got it.
struct SQLiteError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    let sql: String
    var description: String { "SQLite error \(code): \(message)" + (sql.isEmpty ? "" : " (\(sql))") }
}
