import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A ``LazyOverlay`` behind a lock, with the control file: what the FUSE callbacks call (they come
/// from libfuse's threads). Every method answers 0 or `-errno`, as FUSE wants.
public final class LazyFileSystem: @unchecked Sendable {
    public static let controlPath = "/" + LazyOverlay.controlName
    private let lock = NSLock()
    private let overlay: LazyOverlay
    /// Called with each drop's report (the CLI prints it).
    private let onDrop: @Sendable (LazyOverlay.DropReport) -> Void

    public init(backing: String, onDrop: @escaping @Sendable (LazyOverlay.DropReport) -> Void = { _ in }) {
        overlay = LazyOverlay(backing: backing)
        self.onDrop = onDrop
    }

    /// Runs `body` on the overlay under the lock, turning its errors into `-errno`.
    private func locked(_ body: (LazyOverlay) throws -> Void) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        do { try body(overlay); return 0 } catch let e as LazyError { return -e.code } catch { return -EIO }
    }

    /// The power loss, on command (the control file, SIGUSR1, tests).
    @discardableResult
    public func drop(torn: Bool) -> LazyOverlay.DropReport {
        lock.lock()
        let report = overlay.drop(torn: torn)
        lock.unlock()
        onDrop(report)
        return report
    }

    /// Every unsynced write becomes durable (the `writeback` command); 0 or `-errno`.
    public func writeback() -> Int32 { locked { try $0.writeback() } }

    public var status: String {
        lock.lock()
        defer { lock.unlock() }
        return overlay.status
    }

    // MARK: Attributes and directories

    public func getattr(_ path: String, _ st: UnsafeMutablePointer<stat>) -> Int32 {
        if path == Self.controlPath {
            st.pointee = stat()
            st.pointee.st_mode = S_IFREG | 0o600
            st.pointee.st_nlink = 1
            st.pointee.st_uid = getuid()
            st.pointee.st_gid = getgid()
            return 0
        }
        if LazyOverlay.isHidden(path) { return -ENOENT }
        return locked { o in
            guard lstat(o.real(path), st) == 0 else { throw LazyError(errno, "stat") }
            if let size = o.overlaidSize(path) {
                st.pointee.st_size = off_t(size)
                st.pointee.st_blocks = blkcnt_t((size + 511) / 512)
            }
        }
    }

    /// The names in directory `path` (lazyfs's own hidden).
    public func readdir(_ path: String, _ each: (String) -> Void) -> Int32 {
        if LazyOverlay.isHidden(path) { return -ENOENT }
        var names: [String] = []
        let result = locked { o in
            guard let dir = opendir(o.real(path)) else { throw LazyError(errno, "opendir") }
            defer { closedir(dir) }
            while let entry = Glibc.readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                }
                if path == "/", name == LazyOverlay.stashName { continue }
                names.append(name)
            }
        }
        for name in names { each(name) }
        return result
    }

    public func mkdir(_ path: String, _ mode: mode_t) -> Int32 {
        guarded(path) ?? locked { try $0.mkdir(path, mode: mode) }
    }
    public func rmdir(_ path: String) -> Int32 { guarded(path) ?? locked { try $0.rmdir(path) } }
    public func unlink(_ path: String) -> Int32 { guarded(path) ?? locked { try $0.unlink(path) } }

    public func rename(_ from: String, _ to: String, flags: UInt32) -> Int32 {
        if let refused = guarded(from) ?? guarded(to) { return refused }
        // RENAME_NOREPLACE / RENAME_EXCHANGE are not modelled.
        guard flags == 0 else { return -EINVAL }
        return locked { try $0.rename(from, to: to) }
    }

    public func chmod(_ path: String, _ mode: mode_t) -> Int32 {
        guarded(path)
            ?? locked { o in guard Glibc.chmod(o.real(path), mode) == 0 else { throw LazyError(errno, "chmod") } }
    }

    public func chown(_ path: String, _ uid: uid_t, _ gid: gid_t) -> Int32 {
        guarded(path)
            ?? locked { o in guard lchown(o.real(path), uid, gid) == 0 else { throw LazyError(errno, "chown") } }
    }

    public func utimens(_ path: String, _ times: UnsafePointer<timespec>?) -> Int32 {
        if path == Self.controlPath { return 0 }
        return guarded(path)
            ?? locked { o in
                guard utimensat(AT_FDCWD, o.real(path), times, AT_SYMLINK_NOFOLLOW) == 0 else {
                    throw LazyError(errno, "utimens")
                }
            }
    }

    public func statfs(_ path: String, _ out: UnsafeMutablePointer<statvfs>) -> Int32 {
        locked { o in guard statvfs(o.backing, out) == 0 else { throw LazyError(errno, "statfs") } }
    }

    public func fsyncdir(_ path: String) -> Int32 { guarded(path) ?? locked { try $0.syncDirectory(path) } }

    // MARK: Files

    public func create(_ path: String, _ mode: mode_t, flags: Int32) -> Int32 {
        guarded(path)
            ?? locked {
                try $0.create(path, mode: mode & 0o7777, exclusive: flags & O_EXCL != 0, truncate: flags & O_TRUNC != 0)
            }
    }

    public func open(_ path: String, flags: Int32) -> Int32 {
        if path == Self.controlPath { return 0 }
        return guarded(path) ?? locked { try $0.open(path, truncate: flags & O_TRUNC != 0) }
    }

    public func read(_ path: String, into buffer: UnsafeMutableRawBufferPointer, offset: Int) -> Int32 {
        if path == Self.controlPath {
            let bytes = Array(status.utf8)
            guard offset < bytes.count else { return 0 }
            let n = min(buffer.count, bytes.count - offset)
            buffer.copyBytes(from: bytes[offset..<(offset + n)])
            return Int32(n)
        }
        var count: Int32 = 0
        let result = locked { o in
            let bytes = try o.read(path, offset: offset, count: buffer.count)
            buffer.copyBytes(from: bytes)
            count = Int32(bytes.count)
        }
        return result == 0 ? count : result
    }

    public func write(_ path: String, _ bytes: UnsafeRawBufferPointer, offset: Int) -> Int32 {
        if path == Self.controlPath {
            switch LazyCommand.parse(String(decoding: bytes, as: UTF8.self)) {
            case .failure: return -EINVAL
            case .success(let commands):
                for command in commands {
                    switch command {
                    case .drop(let torn): drop(torn: torn)
                    case .writeback:
                        let result = writeback()
                        if result != 0 { return result }
                    }
                }
                return Int32(bytes.count)
            }
        }
        let result = locked { try $0.write(path, offset: offset, bytes: bytes) }
        return result == 0 ? Int32(bytes.count) : result
    }

    public func truncate(_ path: String, size: Int) -> Int32 {
        if path == Self.controlPath { return 0 }
        return guarded(path) ?? locked { try $0.truncate(path, size: size) }
    }

    /// fsync and fdatasync alike: the data and the size are what a crash must keep.
    public func fsync(_ path: String) -> Int32 {
        if path == Self.controlPath { return 0 }
        return locked { try $0.sync(path) }
    }

    /// Refuses anything on lazyfs's own names, which the mount does not show.
    private func guarded(_ path: String) -> Int32? {
        if path == Self.controlPath { return -EPERM }
        if LazyOverlay.isHidden(path) { return -ENOENT }
        return nil
    }
}
