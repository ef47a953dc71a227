import Foundation
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
            try storage.write(StorageBatch(
                noteEntries: [PersistEntry(resourceId: "n1", revision: 1, op: op(0, insert: "héllo"), opId: "c:1"),
                              PersistEntry(resourceId: "n2", revision: 1, op: op(4, insert: "!"), opId: nil),
                              PersistEntry(resourceId: "n1", revision: 2, op: op(5, insert: " 🐋"), opId: "c:2")],
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

    @Test func groupCommitSharesTransactions() async throws {
        let storage = try SQLiteStorage.inMemory()
        let committer = GroupCommitter(storage: storage)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<500 {
                group.addTask {
                    try await committer.commit(StorageBatch(noteEntries: [PersistEntry(resourceId: "n\(index % 7)", revision: 1, op: self.op(0, insert: "x"), opId: nil)]))
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
            try await committer.commit(StorageBatch(refreshTokens: [StoredRefreshToken(tokenHash: "h", userId: "u", expiresAt: 1)]))
        }
        await #expect(throws: FailingStorage.DiskFull.self) {
            try await committer.commit(StorageBatch(refreshTokens: [StoredRefreshToken(tokenHash: "h2", userId: "u", expiresAt: 1)]))
        }
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
