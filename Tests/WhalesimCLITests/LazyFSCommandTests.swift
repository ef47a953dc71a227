import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// `whalesim lazyfs` mounted for real (FUSE, through the built binary): what a program sees
/// through the mount, and what the backing directory keeps after a drop. Skipped, saying so,
/// where FUSE cannot be had (no /dev/fuse, no permission to mount).
@Suite(.serialized) struct LazyFSCommandTests {
    /// Why FUSE cannot be had here, or nil when a probe mount worked.
    static let fuseUnavailable: String? = {
        guard access("/dev/fuse", R_OK | W_OK) == 0 else {
            return "FUSE is not available: /dev/fuse is missing or not writable (whalesim lazyfs needs it)"
        }
        guard let mount = try? LazyFSProcess() else {
            return "FUSE is not available: whalesim lazyfs could not mount here (no permission?)"
        }
        mount.stop()
        return nil
    }()
    static var fuseAvailable: Bool { fuseUnavailable == nil }

    /// A `whalesim lazyfs` child over fresh directories.
    final class LazyFSProcess {
        let root: URL
        let backing: URL
        let mount: URL
        let process = Process()
        var control: URL { mount.appendingPathComponent(".lazyfs-control") }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent(
                "whalesim-lazyfs-test-\(UUID().uuidString.prefix(8))")
            backing = root.appendingPathComponent("backing")
            mount = root.appendingPathComponent("mount")
            try FileManager.default.createDirectory(at: backing, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
            process.executableURL = RunCommandTests.root.appendingPathComponent(".build/debug/whalesim")
            process.arguments = ["lazyfs", "--backing", backing.path, "--mount", mount.path]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            var text = ""
            let deadline = Date().addingTimeInterval(20)
            while !text.contains("lazyfs: mounted"), Date() < deadline, process.isRunning {
                let d = out.fileHandleForReading.availableData
                if d.isEmpty { Thread.sleep(forTimeInterval: 0.02) } else { text += String(decoding: d, as: UTF8.self) }
            }
            // Drain later drop reports on a thread of its own until end of file, not with a
            // readability handler: a dispatch source on a closed pipe can crash the test process.
            let handle = out.fileHandleForReading
            Thread.detachNewThread { while !handle.availableData.isEmpty {} }
            guard text.contains("lazyfs: mounted") else {
                stop()
                throw Failed(text: text)
            }
        }

        func stop() {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
            _ = umount2(mount.path, Int32(MNT_DETACH))
            try? FileManager.default.removeItem(at: root)
        }

        func drop(_ command: String = "drop") throws { try Data("\(command)\n".utf8).write(to: control) }
        func backingBytes(_ name: String) -> [UInt8]? {
            (try? Data(contentsOf: backing.appendingPathComponent(name))).map { Array($0) }
        }
        func mountBytes(_ name: String) -> [UInt8]? {
            (try? Data(contentsOf: mount.appendingPathComponent(name))).map { Array($0) }
        }

        struct Failed: Error { var text: String }
    }

    /// Writes `bytes` at `offset` through the mount; fsyncs when asked.
    static func write(_ url: URL, _ bytes: [UInt8], at offset: Int = 0, create: Bool = false, sync: Bool) throws {
        let fd = open(url.path, O_WRONLY | (create ? O_CREAT : 0), 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, bytes.count, off_t(offset)) }
        #expect(n == bytes.count)
        if sync { #expect(fsync(fd) == 0) }
    }

    static func syncDirectory(_ url: URL) {
        let fd = open(url.path, O_RDONLY | O_DIRECTORY)
        #expect(fd >= 0)
        #expect(fsync(fd) == 0)
        close(fd)
    }

    @Test(.enabled(if: fuseAvailable, "\(fuseUnavailable ?? "")"))
    func syncedDataSurvivesADropThroughTheMountAndUnsyncedDataDoesNot() throws {
        let fs = try LazyFSProcess()
        defer { fs.stop() }
        let file = fs.mount.appendingPathComponent("db")
        try Self.write(file, Array("durable".utf8), create: true, sync: true)
        Self.syncDirectory(fs.mount)
        try Self.write(file, Array(" and not".utf8), at: 7, sync: false)
        // Until the drop a reader sees the unsynced bytes (a page cache); the disk does not have them.
        #expect(fs.mountBytes("db") == Array("durable and not".utf8))
        #expect(fs.backingBytes("db") == Array("durable".utf8))
        let status = try String(contentsOf: fs.control, encoding: .utf8)
        #expect(status.contains("unsynced-files 1"), "\(status)")
        try fs.drop()
        #expect(fs.mountBytes("db") == Array("durable".utf8))
        #expect(try String(contentsOf: fs.control, encoding: .utf8).contains("drops 1"))
        // lazyfs's own names stay out of listings.
        let names = try FileManager.default.contentsOfDirectory(atPath: fs.mount.path)
        #expect(names == ["db"], "\(names)")
    }

    @Test(.enabled(if: fuseAvailable, "\(fuseUnavailable ?? "")"))
    func aRenameWithoutADirectoryFsyncIsUndoneThroughTheMount() throws {
        let fs = try LazyFSProcess()
        defer { fs.stop() }
        try Self.write(fs.mount.appendingPathComponent("config"), Array("old".utf8), create: true, sync: true)
        Self.syncDirectory(fs.mount)
        try Self.write(fs.mount.appendingPathComponent("config.tmp"), Array("new".utf8), create: true, sync: true)
        #expect(
            rename(fs.mount.appendingPathComponent("config.tmp").path, fs.mount.appendingPathComponent("config").path)
                == 0)
        #expect(fs.mountBytes("config") == Array("new".utf8))
        try fs.drop()
        #expect(fs.mountBytes("config") == Array("old".utf8))
        #expect(!FileManager.default.fileExists(atPath: fs.mount.appendingPathComponent("config.tmp").path))
        // The same with the directory fsync: the new file holds.
        try Self.write(fs.mount.appendingPathComponent("config.tmp"), Array("new".utf8), create: true, sync: true)
        #expect(
            rename(fs.mount.appendingPathComponent("config.tmp").path, fs.mount.appendingPathComponent("config").path)
                == 0)
        Self.syncDirectory(fs.mount)
        try fs.drop()
        #expect(fs.mountBytes("config") == Array("new".utf8))
    }

    @Test(.enabled(if: fuseAvailable, "\(fuseUnavailable ?? "")"))
    func aTornDropTearsTheNewestWriteAtItsFirstPageBoundary() throws {
        let fs = try LazyFSProcess()
        defer { fs.stop() }
        let file = fs.mount.appendingPathComponent("wal")
        try Self.write(file, [UInt8](repeating: 0x61, count: 100), create: true, sync: true)
        Self.syncDirectory(fs.mount)
        try Self.write(file, [UInt8](repeating: 0x62, count: 9_000), at: 100, sync: false)
        try fs.drop("drop torn")
        // The kernel hands one write(2) to the filesystem in page-sized requests, served on
        // several threads, so "the newest write" is whichever of them lazyfs got last: that one
        // page-aligned piece reached the disk, the others did not. What survives: the synced 100
        // bytes, then zeros or the write's bytes, the kept bytes one run bounded by the write or
        // a page boundary, and less than the whole write. (The overlay tests pin one write exactly.)
        let bytes = try #require(fs.backingBytes("wal"))
        #expect(bytes.prefix(100).allSatisfy { $0 == 0x61 })
        let first = try #require(bytes.firstIndex(of: 0x62), "nothing of the torn write reached the disk")
        let end = (bytes.lastIndex(of: 0x62) ?? first) + 1
        #expect(first == 100 || first % 4_096 == 0, "the kept piece starts at \(first)")
        #expect(end == 9_100 || end % 4_096 == 0, "the kept piece ends at \(end)")
        #expect(bytes.count == end)
        #expect(bytes[100..<first].allSatisfy { $0 == 0 })
        #expect(bytes[first..<end].allSatisfy { $0 == 0x62 })
        #expect(end - first < 9_000, "the whole write survived a torn drop")
        #expect(fs.mountBytes("wal") == bytes)
    }

    @Test(.enabled(if: fuseAvailable, "\(fuseUnavailable ?? "")"))
    func aBadControlCommandIsRefusedAndChangesNothing() throws {
        let fs = try LazyFSProcess()
        defer { fs.stop() }
        try Self.write(fs.mount.appendingPathComponent("f"), Array("x".utf8), create: true, sync: false)
        let fd = open(fs.control.path, O_WRONLY)
        #expect(fd >= 0)
        let n = Array("flush\n".utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let failure = errno
        close(fd)
        #expect(n == -1 && failure == EINVAL)
        #expect(fs.mountBytes("f") == Array("x".utf8))
    }

    @Test func badArgumentsExit64() throws {
        let run = try RunCommandTests().whalesim(["lazyfs", "--backing", "/nonexistent-whalesim", "--mount", "/tmp"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--backing /nonexistent-whalesim is not a directory"), "\(run.all)")
        let same = try RunCommandTests().whalesim(["lazyfs", "--backing", "/tmp", "--mount", "/tmp"])
        #expect(same.status == 64)
        #expect(same.stderr.contains("separate directories"), "\(same.all)")
    }
}
