import Foundation
import NIOConcurrencyHelpers
import Testing
import WhaleOT
import WhaleProtocol
import WhalesimTesting
@testable import WhaleServer

/// SQLite storage and group commit: what is written comes back exactly; many callers share
/// few transactions; a failed write is never reported durable.
@Suite struct StorageTests {
    func op(_ length: Int, insert: String) -> WhaleOT.Operation { .replace(in: length, at: length, inserting: insert) }

    @Test func notesRecordsAndTokensRoundTripThroughAFile() throws {
        let path = try ExternalProcess.temporaryDirectory("storage").appendingPathComponent("s.sqlite").path
        do {
            let storage = try SQLiteStorage(path: path)
            #expect(try storage.schemaVersion() == 1)
            try storage.write(
                StorageBatch(
                    noteEntries: [
                        PersistEntry(resourceId: "n1", revision: 1, op: op(0, insert: "héllo"), opId: "c:1"),
                        PersistEntry(resourceId: "n2", revision: 1, op: op(4, insert: "!"), opId: nil),
                        PersistEntry(resourceId: "n1", revision: 2, op: op(5, insert: " 🐋"), opId: "c:2"),
                    ],
                    records: [StoredRecord(kind: "model", id: "account:a1", body: #"{"x":1}"#)],
                    refreshTokens: [StoredRefreshToken(tokenHash: "h", userId: "u", expiresAt: 100)]))
            try storage.write(StorageBatch(records: [StoredRecord(kind: "model", id: "account:a1", body: #"{"x":2}"#)]))
        }
        let reopened = try SQLiteStorage(path: path)
        let notes = try reopened.loadNotes(initialTexts: ["n2": "seed"])
        #expect(notes.map(\.resourceId) == ["n1", "n2"])
        let n1 = try ServerDocument(restoring: notes[0])
        #expect(n1.text == "héllo 🐋" && n1.revision == 2 && n1.opIds == ["c:1", "c:2"])
        #expect(try ServerDocument(restoring: notes[1]).text == "seed!")
        #expect(try reopened.loadRecords() == [StoredRecord(kind: "model", id: "account:a1", body: #"{"x":2}"#)])
        #expect(try reopened.loadRefreshTokens(now: 50).count == 1)
        #expect(try reopened.loadRefreshTokens(now: 150).isEmpty, "expired refresh tokens are not loaded")
    }

    /// A database written by an earlier whalesim (through GRDB, in the statements GRDB wrote) opens
    /// unchanged: its rows load and its migration is not run again. A U+0000 in a note is kept whole.
    @Test func aFileWrittenThroughGRDBOpensUnchanged() throws {
        let path = try ExternalProcess.temporaryDirectory("storage-grdb").appendingPathComponent("old.sqlite").path
        do {
            let old = try SQLiteConnection(path: path)
            try old.execute("PRAGMA journal_mode = WAL")
            try old.execute(
                """
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1');
                \(SQLiteStorage.migrations[0].sql)
                INSERT INTO note_log (resource_id, revision, op, op_id, reset_text)
                  VALUES ('n1', 1, '\(SQLiteStorage.encodeOperation(op(0, insert: "ab")))', 'c:1', NULL);
                INSERT INTO model_record VALUES ('model', 'account:a1', '{}');
                """)
        }
        let storage = try SQLiteStorage(path: path)
        #expect(try storage.schemaVersion() == 1)
        #expect(try ServerDocument(restoring: storage.loadNotes(initialTexts: [:])[0]).text == "ab")
        #expect(try storage.loadRecords() == [StoredRecord(kind: "model", id: "account:a1", body: "{}")])
        try storage.write(
            StorageBatch(noteEntries: [
                PersistEntry(resourceId: "n1", revision: 2, op: op(2, insert: "c\u{0}d"), opId: "c:2")
            ]))
        #expect(try ServerDocument(restoring: storage.loadNotes(initialTexts: [:])[0]).text == "abc\u{0}d")
    }

    /// A file that is not an SQLite database is refused with SQLite's own words, and left as it was.
    @Test func aFileThatIsNotADatabaseIsRefusedAndKept() throws {
        let path = try ExternalProcess.temporaryDirectory("storage-bad").appendingPathComponent("bad.sqlite").path
        let junk = Data(repeating: 0x41, count: 4096)
        try junk.write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try SQLiteStorage(path: path)
        } throws: { error in
            "\(error)".contains("file is not a database")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == junk)
    }

    /// The writer really runs at the level asked for. GRDB's pool, which this storage once used,
    /// switched its writer to NORMAL when it set up WAL; under NORMAL a commit is not synced, and a power loss (issue 24,
    /// docs/lazyfs.md) lost acknowledged ops of the reference server.
    @Test func theWriterRunsAtTheSynchronousLevelAskedFor() throws {
        let directory = try ExternalProcess.temporaryDirectory("storage-sync")
        for level in SQLiteSynchronous.allCases {
            let storage = try SQLiteStorage(
                path: directory.appendingPathComponent("\(level).sqlite").path, synchronous: level)
            #expect(try storage.synchronousLevel() == level.pragmaValue, "\(level)")
        }
        #expect(
            try SQLiteStorage(path: directory.appendingPathComponent("default.sqlite").path).synchronousLevel() == 2)
    }

    @Test func groupCommitSharesTransactions() async throws {
        let storage = try SQLiteStorage.inMemory()
        let committer = GroupCommitter(storage: storage)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<500 {
                group.addTask {
                    try await committer.commit(
                        StorageBatch(noteEntries: [
                            PersistEntry(
                                resourceId: "n\(index % 7)", revision: 1, op: self.op(0, insert: "x"), opId: nil)
                        ]))
                }
            }
            try await group.waitForAll()
        }
        #expect(try storage.loadNotes(initialTexts: [:]).reduce(0) { $0 + $1.history.count } == 500)
        #expect(committer.batchesCommitted < 500, "\(committer.batchesCommitted) transactions for 500 writes")
        await committer.stop()
    }

    /// A storage whose writes fail: nothing may be reported durable.
    final class FailingStorage: ServerStorage, @unchecked Sendable {
        struct DiskFull: Error {}
        func loadNotes(initialTexts: [String: String]) throws -> [PersistedDocument] { [] }
        func loadRecords() throws -> [StoredRecord] { [] }
        func loadRefreshTokens(now: Int64) throws -> [StoredRefreshToken] { [] }
        func write(_ batch: StorageBatch) throws { throw DiskFull() }
        func schemaVersion() throws -> Int { 1 }
    }

    @Test func aFailedWriteIsNeverDurable() async throws {
        let committer = GroupCommitter(storage: FailingStorage())
        await #expect(throws: FailingStorage.DiskFull.self) {
            try await committer.commit(
                StorageBatch(refreshTokens: [StoredRefreshToken(tokenHash: "h", userId: "u", expiresAt: 1)]))
        }
        await #expect(throws: FailingStorage.DiskFull.self) {
            try await committer.commit(
                StorageBatch(refreshTokens: [StoredRefreshToken(tokenHash: "h2", userId: "u", expiresAt: 1)]))
        }
    }

    /// The note shards deliver from the committer's listener: it must hear of each commit after
    /// it is durable, and of a failure exactly once, with nothing durable after it.
    @Test func commitListenersHearOfDurableCommitsAndOfOneFailure() async throws {
        let storage = try SQLiteStorage.inMemory()
        let committer = GroupCommitter(storage: storage)
        let heard = NIOLockedValueBox<[UInt64]>([])
        committer.onCommit { outcome in
            if case .success = outcome { heard.withLockedValue { $0.append(committer.durableTicket) } }
        }
        let ticket = committer.enqueue(
            StorageBatch(noteEntries: [PersistEntry(resourceId: "n", revision: 1, op: op(0, insert: "x"), opId: nil)]))
        try await committer.waitDurable(ticket)
        #expect(heard.withLockedValue { $0.last } == ticket, "the listener ran before the waiter was resumed")
        #expect(try storage.loadNotes(initialTexts: [:]).first?.history.count == 1)
        await committer.stop()

        let failing = GroupCommitter(storage: FailingStorage())
        let failures = NIOLockedValueBox(0)
        failing.onCommit { outcome in if case .failure = outcome { failures.withLockedValue { $0 += 1 } } }
        for name in ["a", "b", "c"] {
            await #expect(throws: FailingStorage.DiskFull.self) {
                try await failing.commit(
                    StorageBatch(refreshTokens: [StoredRefreshToken(tokenHash: name, userId: "u", expiresAt: 1)]))
            }
        }
        #expect(failures.withLockedValue { $0 } == 1)
        #expect(failing.durableTicket == 0)
    }

    /// Commits do not checkpoint (`wal_autocheckpoint = 0`); the checkpointer's thread copies the
    /// log into the database file beside them. Without it the file would not grow until close.
    @Test func theLogIsCheckpointedBesideTheWriter() async throws {
        let path = try ExternalProcess.temporaryDirectory("checkpoint").appendingPathComponent("s.sqlite").path
        let storage = try SQLiteStorage(path: path)
        func size(_ file: String) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int) ?? 0
        }
        let before = size(path)
        for batch in 0..<200 {
            try storage.write(
                StorageBatch(
                    noteEntries: (0..<20).map { i in
                        PersistEntry(
                            resourceId: "n\(batch % 5)", revision: i + 1,
                            op: op(i, insert: String(repeating: "w", count: 40)), opId: "c:\(batch).\(i)")
                    }))
        }
        var grown = false
        for _ in 0..<40 where !grown {
            try await Task.sleep(for: .milliseconds(100))
            grown = size(path) > before + 100_000
        }
        #expect(grown, "database file \(before) → \(size(path)) bytes, log \(size(path + "-wal")) bytes")
        #expect(try storage.loadNotes(initialTexts: [:]).reduce(0) { $0 + $1.history.count } == 4_000)
    }

    @Test func aDatabaseThatCannotBeOpenedIsAClearError() async throws {
        await #expect(throws: ServerStartError.self) {
            var configuration = ServerConfiguration()
            configuration.database = "/proc/no-such-dir/x.sqlite"
            configuration.port = 0
            _ = try await ReferenceServer.start(configuration)
        }
    }
}
