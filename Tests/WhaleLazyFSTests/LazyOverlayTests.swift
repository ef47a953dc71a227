import Foundation
import Testing
import WhaleLazyFS

/// The power-loss semantics of `whalesim lazyfs` on the overlay alone (no FUSE): a real backing
/// directory, the calls a mount would make, then a drop, and what the backing directory holds.
@Suite struct LazyOverlayTests {
    /// A fresh backing directory with its overlay.
    final class Fixture {
        let directory: URL
        let fs: LazyOverlay
        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "whalesim-lazy-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            fs = LazyOverlay(backing: directory.path)
        }
        deinit { try? FileManager.default.removeItem(at: directory) }

        /// The backing file's bytes (what survived), nil if it is not there.
        func onDisk(_ path: String) -> [UInt8]? {
            (try? Data(contentsOf: directory.appendingPathComponent(String(path.dropFirst())))).map { Array($0) }
        }
        func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: directory.path + path) }
        /// Everything the mount shows of `path`.
        func shown(_ path: String) throws -> [UInt8] { try fs.read(path, offset: 0, count: 1 << 20) }
        /// A durable, empty file.
        func durableFile(_ path: String) throws {
            try fs.create(path, mode: 0o644)
            try fs.syncDirectory(LazyOverlayTestsParent(path))
        }
    }

    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test func syncedDataSurvivesADropAndUnsyncedDataDoesNot() throws {
        let f = try Fixture()
        try f.durableFile("/db")
        try f.fs.write("/db", offset: 0, bytes: Self.bytes("committed"))
        try f.fs.sync("/db")
        try f.fs.write("/db", offset: 9, bytes: Self.bytes(" and more"))
        try f.fs.write("/db", offset: 0, bytes: Self.bytes("C"))
        // Reads see the unsynced data (a page cache), the disk does not.
        #expect(try f.shown("/db") == Self.bytes("Committed and more"))
        #expect(f.onDisk("/db") == Self.bytes("committed"))
        #expect(f.fs.unsyncedFiles == 1)
        let report = f.fs.drop(torn: false)
        #expect(report.filesDropped == 1)
        #expect(report.bytesDropped == LazyOverlay.pageSize)
        #expect(try f.shown("/db") == Self.bytes("committed"))
        #expect(f.onDisk("/db") == Self.bytes("committed"))
        #expect(f.fs.status == "unsynced-files 0\nunsynced-bytes 0\nunsynced-namespace 0\ndrops 1\n")
    }

    @Test func writesAcrossPagesAndPastTheEndReadBackAndSyncWhole() throws {
        let f = try Fixture()
        try f.durableFile("/big")
        let first = (0..<10_000).map { UInt8($0 % 251) }
        try f.fs.write("/big", offset: 0, bytes: first)
        try f.fs.sync("/big")
        // A write with a hole before it: the hole reads as zeros.
        try f.fs.write("/big", offset: 12_000, bytes: Self.bytes("tail"))
        var expected = first + [UInt8](repeating: 0, count: 2_000) + Self.bytes("tail")
        #expect(try f.shown("/big") == expected)
        #expect(f.fs.overlaidSize("/big") == 12_004)
        #expect(try f.fs.read("/big", offset: 9_998, count: 4) == [first[9_998], first[9_999], 0, 0])
        try f.fs.sync("/big")
        #expect(f.onDisk("/big") == expected)
        // A truncate down then up: the bytes it cut read as zeros, before and after a sync.
        try f.fs.truncate("/big", size: 5_000)
        try f.fs.truncate("/big", size: 6_000)
        expected = Array(first[0..<5_000]) + [UInt8](repeating: 0, count: 1_000)
        #expect(try f.shown("/big") == expected)
        try f.fs.sync("/big")
        #expect(f.onDisk("/big") == expected)
    }

    @Test func anUnsyncedTruncateIsUndone() throws {
        let f = try Fixture()
        try f.durableFile("/wal")
        try f.fs.write("/wal", offset: 0, bytes: Self.bytes("frames"))
        try f.fs.sync("/wal")
        try f.fs.truncate("/wal", size: 0)
        #expect(try f.shown("/wal") == [])
        f.fs.drop(torn: false)
        #expect(try f.shown("/wal") == Self.bytes("frames"))
    }

    @Test func aCreateWithoutADirectorySyncIsUndoneEvenIfItsDataWasSynced() throws {
        let f = try Fixture()
        try f.fs.mkdir("/data", mode: 0o755)
        try f.fs.syncDirectory("/")
        try f.fs.create("/data/new", mode: 0o644)
        try f.fs.write("/data/new", offset: 0, bytes: Self.bytes("x"))
        try f.fs.sync("/data/new")
        #expect(f.exists("/data/new"))
        #expect(f.fs.unsyncedNamespaceChanges == 1)
        let report = f.fs.drop(torn: false)
        #expect(report.namespaceUndone == 1)
        #expect(!f.exists("/data/new"))
        #expect(f.exists("/data"))
        // After a sync of its directory the name is durable too.
        try f.fs.create("/data/kept", mode: 0o644)
        try f.fs.syncDirectory("/data")
        f.fs.drop(torn: false)
        #expect(f.exists("/data/kept"))
    }

    @Test func aRenameWithoutADirectorySyncIsUndoneAndTheReplacedFileComesBack() throws {
        let f = try Fixture()
        try f.durableFile("/config")
        try f.fs.write("/config", offset: 0, bytes: Self.bytes("old"))
        try f.fs.sync("/config")
        // The atomic-replace idiom, without the final directory fsync.
        try f.fs.create("/config.tmp", mode: 0o644)
        try f.fs.write("/config.tmp", offset: 0, bytes: Self.bytes("new"))
        try f.fs.sync("/config.tmp")
        try f.fs.rename("/config.tmp", to: "/config")
        #expect(try f.shown("/config") == Self.bytes("new"))
        #expect(!f.exists("/config.tmp"))
        let report = f.fs.drop(torn: false)
        #expect(report.namespaceUndone == 2)  // the rename, then the create
        #expect(report.undoFailures == 0)
        #expect(f.onDisk("/config") == Self.bytes("old"))
        #expect(!f.exists("/config.tmp"))
        // With the directory fsync the rename holds, and the replaced file leaves the stash.
        try f.fs.create("/config.tmp", mode: 0o644)
        try f.fs.write("/config.tmp", offset: 0, bytes: Self.bytes("new"))
        try f.fs.sync("/config.tmp")
        try f.fs.rename("/config.tmp", to: "/config")
        try f.fs.syncDirectory("/")
        f.fs.drop(torn: false)
        #expect(f.onDisk("/config") == Self.bytes("new"))
        let stash = try FileManager.default.contentsOfDirectory(atPath: f.directory.path + "/" + LazyOverlay.stashName)
        #expect(stash.isEmpty, "\(stash)")
    }

    @Test func unsyncedDataFollowsARenamedFile() throws {
        let f = try Fixture()
        try f.durableFile("/a")
        try f.fs.write("/a", offset: 0, bytes: Self.bytes("unsynced"))
        try f.fs.rename("/a", to: "/b")
        #expect(try f.shown("/b") == Self.bytes("unsynced"))
        try f.fs.sync("/b")
        try f.fs.syncDirectory("/")
        f.fs.drop(torn: false)
        #expect(f.onDisk("/b") == Self.bytes("unsynced"))
        #expect(!f.exists("/a"))
    }

    @Test func anUnlinkWithoutADirectorySyncIsUndone() throws {
        let f = try Fixture()
        try f.durableFile("/journal")
        try f.fs.write("/journal", offset: 0, bytes: Self.bytes("j"))
        try f.fs.sync("/journal")
        try f.fs.unlink("/journal")
        #expect(!f.exists("/journal"))
        #expect(throws: LazyError.self) { try f.fs.read("/journal", offset: 0, count: 1) }
        f.fs.drop(torn: false)
        #expect(f.onDisk("/journal") == Self.bytes("j"))
        try f.fs.unlink("/journal")
        try f.fs.syncDirectory("/")
        f.fs.drop(torn: false)
        #expect(!f.exists("/journal"))
        // A removed directory comes back too, and an unsynced mkdir goes.
        try f.fs.mkdir("/d", mode: 0o700)
        try f.fs.syncDirectory("/")
        try f.fs.rmdir("/d")
        try f.fs.mkdir("/e", mode: 0o700)
        f.fs.drop(torn: false)
        #expect(f.exists("/d"))
        #expect(!f.exists("/e"))
    }

    @Test func aTornDropKeepsTheNewestWriteUpToItsFirstPageBoundaryOnly() throws {
        let f = try Fixture()
        try f.durableFile("/log")
        try f.fs.write("/log", offset: 0, bytes: [UInt8](repeating: 0x61, count: 2_000))
        try f.fs.sync("/log")
        try f.durableFile("/other")
        try f.fs.write("/other", offset: 0, bytes: Self.bytes("older unsynced write"))
        // The newest write spans pages 0..2 from offset 1000: the first 3096 bytes reach the disk.
        try f.fs.write("/log", offset: 1_000, bytes: [UInt8](repeating: 0x62, count: 10_000))
        let report = f.fs.drop(torn: true)
        #expect(report.torn == "/log 1000+3096/10000")
        #expect(f.onDisk("/log") == [UInt8](repeating: 0x61, count: 1_000) + [UInt8](repeating: 0x62, count: 3_096))
        #expect(f.onDisk("/other") == [])
        // A write inside one page is atomic: it reaches the disk whole.
        try f.fs.write("/log", offset: 4_100, bytes: Self.bytes("small"))
        #expect(f.fs.drop(torn: true).torn == "/log 4100+5/5")
        #expect(f.onDisk("/log")?.count == 4_105)
        // A plain drop tears nothing.
        try f.fs.write("/log", offset: 0, bytes: [UInt8](repeating: 0x63, count: 9_000))
        #expect(f.fs.drop(torn: false).torn == nil)
        #expect(f.onDisk("/log")?.first == 0x61)
    }

    @Test func lazyfsOwnNamesAreHiddenAndBadInputGetsAnErrno() throws {
        let f = try Fixture()
        #expect(LazyOverlay.isHidden("/" + LazyOverlay.stashName))
        #expect(LazyOverlay.isHidden("/" + LazyOverlay.stashName + "/3"))
        #expect(!LazyOverlay.isHidden("/data/" + LazyOverlay.stashName))
        #expect(throws: LazyError.self) { try f.fs.write("/missing", offset: 0, bytes: [1]) }
        #expect(throws: LazyError.self) { try f.fs.write("/", offset: 0, bytes: [1]) }
        #expect(throws: LazyError.self) { try f.fs.truncate("/missing", size: 0) }
        try f.fs.create("/x", mode: 0o644)
        #expect((try? f.fs.create("/x", mode: 0o644, exclusive: true)) == nil)
        #expect(throws: LazyError.self) { try f.fs.write("/x", offset: -1, bytes: [1]) }
        #expect(throws: LazyError.self) { try f.fs.rename("/missing", to: "/y") }
        do {
            try f.fs.rename("/x", to: "/")
            Issue.record("a file renamed over a directory")
        } catch let e as LazyError {
            #expect(e.code == EISDIR)
        }
    }

    /// `writeback`: what the kernel's writeback does, for everything at once: unsynced data and
    /// namespace changes become durable, and a drop after it loses nothing.
    @Test func aWritebackMakesEverythingUnsyncedDurable() throws {
        let f = try Fixture()
        try f.durableFile("/old")
        try f.fs.mkdir("/data", mode: 0o755)
        try f.fs.create("/data/db", mode: 0o644)
        try f.fs.write("/data/db", offset: 0, bytes: Self.bytes("users and accounts"))
        try f.fs.unlink("/old")
        #expect(f.fs.unsyncedFiles == 1 && f.fs.unsyncedNamespaceChanges == 3)
        #expect(f.onDisk("/data/db") == [])
        #expect(try f.fs.writeback() == 1)
        #expect(f.fs.unsyncedFiles == 0 && f.fs.unsyncedNamespaceChanges == 0)
        #expect(f.onDisk("/data/db") == Self.bytes("users and accounts"))
        // What comes after it is as lazy as ever.
        try f.fs.write("/data/db", offset: 0, bytes: Self.bytes("USERS"))
        let report = f.fs.drop(torn: false)
        #expect(report.filesDropped == 1 && report.namespaceUndone == 0)
        #expect(try f.shown("/data/db") == Self.bytes("users and accounts"))
        #expect(!f.exists("/old"), "the removal was written back too")
        let stash = (try? FileManager.default.contentsOfDirectory(atPath: f.directory.path + "/.lazyfs-stash")) ?? []
        #expect(stash.isEmpty, "a written-back removal leaves nothing in the stash: \(stash)")
    }

    @Test func controlFileCommandsParseAndBadOnesAreRefused() throws {
        #expect(try LazyCommand.parse("drop\n").get() == [.drop(torn: false)])
        #expect(try LazyCommand.parse("drop torn").get() == [.drop(torn: true)])
        #expect(try LazyCommand.parse("\n  drop   torn \r\ndrop\n").get() == [.drop(torn: true), .drop(torn: false)])
        #expect(try LazyCommand.parse("").get() == [])
        guard case .failure(let e) = LazyCommand.parse("drop\nflush") else { Issue.record("flush accepted"); return }
        #expect(e.description == "unknown lazyfs command \"flush\" (expected \"drop\", \"drop torn\" or \"writeback\")")
        #expect(try LazyCommand.parse("writeback\ndrop").get() == [.writeback, .drop(torn: false)])
        guard case .failure = LazyCommand.parse("writeback now") else { Issue.record("writeback now accepted"); return }
        guard case .failure = LazyCommand.parse("drop torn now") else { Issue.record("drop torn now accepted"); return }
    }
}

private func LazyOverlayTestsParent(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
    return String(path[..<slash])
}
