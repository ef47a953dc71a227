import CFuse3
import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// The FUSE side of `whalesim lazyfs`: libfuse3's high-level API, each callback a C function
/// pointer that finds the ``LazyFileSystem`` in the context's private data and calls it. No
/// filesystem logic lives here.
public enum LazyMount {
    /// The FUSE handle being served, for ``stop()`` (one mount per process).
    nonisolated(unsafe) private static var current: OpaquePointer?
    /// A stop asked for before the loop started (a SIGTERM right after "mounted"): the loop is
    /// not entered; unmounting under a loop that is only starting left it running for good.
    nonisolated(unsafe) private static var stopRequested = false
    nonisolated(unsafe) private static var looping = false
    nonisolated(unsafe) private static var mountPath: String?
    private static let currentLock = NSLock()

    /// Ends ``serve(_:mount:mounted:)`` from any thread (the CLI's SIGTERM/SIGINT handler): the
    /// mount goes away, the worker threads' reads fail, the loop returns. libfuse's own signal
    /// handlers are not used: they end the loop only when the signal lands on its main thread,
    /// and Dispatch's threads take signals too.
    public static func stop() {
        currentLock.lock()
        defer { currentLock.unlock() }
        stopRequested = true
        guard let fuse = current, looping else { return }
        fuse_exit(fuse)
        // Detach the mount: the kernel ends the connection and every worker's read fails, even
        // a worker that is only starting (fuse_unmount would also close the device under it).
        if getuid() == 0, let path = mountPath { _ = umount2(path, Int32(MNT_DETACH)) } else { fuse_unmount(fuse) }
    }

    /// Mounts `backing` at `mount` and serves it until ``stop()`` (then unmounts: whatever was
    /// not synced is lost, as in a power loss). `mounted` runs once the mount is up.
    /// Throws when FUSE cannot be had (no /dev/fuse, no permission, the mount refused).
    public static func serve(_ fs: LazyFileSystem, mount: String, mounted: () -> Void) throws {
        var ops = operations()
        let arguments = ["whalesim-lazyfs", "-o", "fsname=lazyfs,subtype=whalesim"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        defer { for a in argv { free(a) } }
        let retained = Unmanaged.passRetained(fs)
        defer { retained.release() }
        let fuse: OpaquePointer? = argv.withUnsafeMutableBufferPointer { buffer in
            var args = fuse_args(argc: Int32(arguments.count), argv: buffer.baseAddress, allocated: 0)
            return whalesim_fuse_new(&args, &ops, retained.toOpaque())
        }
        guard let fuse else { throw LazyMountError("fuse_new failed (see libfuse's message above)") }
        defer { fuse_destroy(fuse) }
        guard fuse_mount(fuse, mount) == 0 else {
            throw LazyMountError(
                "cannot mount \(mount): FUSE is not available here (no /dev/fuse, no permission, or the mount was refused; libfuse's message above)"
            )
        }
        currentLock.lock()
        current = fuse
        mountPath = mount
        currentLock.unlock()
        defer {
            currentLock.lock()
            current = nil
            fuse_unmount(fuse)  // a no-op when stop() already unmounted
            currentLock.unlock()
        }
        mounted()
        currentLock.lock()
        let stopNow = stopRequested
        looping = !stopNow
        currentLock.unlock()
        if !stopNow { _ = whalesim_fuse_loop_mt(fuse) }
        currentLock.lock()
        looping = false
        currentLock.unlock()
    }

    /// Whether this machine can mount FUSE at all (`/dev/fuse` opens read-write).
    public static var deviceAvailable: Bool {
        let fd = Glibc.open("/dev/fuse", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    private static func operations() -> fuse_operations {
        var ops = fuse_operations()
        ops.`init` = { _, config in
            // Every attribute and name is asked again each time: a drop changes sizes and
            // names behind the kernel's back, so nothing may be cached for a second.
            if let config {
                config.pointee.entry_timeout = 0
                config.pointee.attr_timeout = 0
                config.pointee.negative_timeout = 0
                config.pointee.use_ino = 0
                config.pointee.kernel_cache = 0
                config.pointee.auto_cache = 0
                config.pointee.direct_io = 0  // SQLite's WAL maps its -shm file shared; direct I/O would refuse that
            }
            return whalesim_fuse_private_data()
        }
        ops.getattr = { path, st, _ in filesystem().getattr(string(path), st!) }
        ops.readdir = { path, buffer, filler, _, _, _ in
            filesystem().readdir(string(path)) { name in
                _ = filler?(buffer, name, nil, 0, fuse_fill_dir_flags(rawValue: 0))
            }
        }
        ops.mkdir = { path, mode in filesystem().mkdir(string(path), mode) }
        ops.rmdir = { path in filesystem().rmdir(string(path)) }
        ops.unlink = { path in filesystem().unlink(string(path)) }
        ops.rename = { from, to, flags in filesystem().rename(string(from), string(to), flags: flags) }
        ops.chmod = { path, mode, _ in filesystem().chmod(string(path), mode) }
        ops.chown = { path, uid, gid, _ in filesystem().chown(string(path), uid, gid) }
        ops.utimens = { path, times, _ in filesystem().utimens(string(path), times) }
        ops.statfs = { path, out in filesystem().statfs(string(path), out!) }
        ops.create = { path, mode, fi in filesystem().create(string(path), mode, flags: fi?.pointee.flags ?? 0) }
        ops.open = { path, fi in
            let p = string(path)
            // The control file's size is 0; direct I/O lets a read see its status anyway.
            if p == LazyFileSystem.controlPath, let fi { whalesim_fi_set_direct_io(fi, 1) }
            return filesystem().open(p, flags: fi?.pointee.flags ?? 0)
        }
        ops.read = { path, buffer, size, offset, _ in
            filesystem().read(
                string(path), into: UnsafeMutableRawBufferPointer(start: buffer, count: size), offset: Int(offset))
        }
        ops.write = { path, buffer, size, offset, _ in
            filesystem().write(string(path), UnsafeRawBufferPointer(start: buffer, count: size), offset: Int(offset))
        }
        ops.truncate = { path, size, _ in filesystem().truncate(string(path), size: Int(size)) }
        ops.fsync = { path, _, _ in filesystem().fsync(string(path)) }
        ops.fsyncdir = { path, _, _ in filesystem().fsyncdir(string(path)) }
        ops.flush = { _, _ in 0 }
        ops.release = { _, _ in 0 }
        return ops
    }
}

/// Why the mount could not be had.
public struct LazyMountError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

private func filesystem() -> LazyFileSystem {
    Unmanaged<LazyFileSystem>.fromOpaque(whalesim_fuse_private_data()!).takeUnretainedValue()
}

private func string(_ path: UnsafePointer<CChar>?) -> String { path.map { String(cString: $0) } ?? "/" }
