#if canImport(Glibc)
    import Glibc
#endif

/// The filesystem logic of `whalesim lazyfs`, without FUSE: a backing directory plus what a
/// power loss would take away. Written data stays in memory (per file, in pages) until the file
/// is synced; creates, removes and renames happen in the backing directory at once but are
/// logged with their undo until a directory they touch is synced. ``drop(torn:)`` is the power
/// loss: every unsynced page is forgotten and every unsynced namespace change undone, newest
/// first. Reads merge the pages over the backing file, as a page cache would.
///
/// Paths are the mount's (`/dir/file`). Not thread-safe: the FUSE glue holds a lock around it.
/// docs/lazyfs.md has the semantics.
///
/// ```swift
/// let fs = LazyOverlay(backing: "/tmp/backing")
/// try fs.create("/a", mode: 0o644)
/// try fs.write("/a", offset: 0, bytes: Array("hello".utf8))
/// try fs.sync("/a")                 // "hello" is durable; "/a" itself is not until "/" is synced
/// fs.drop(torn: false)              // "/a" is gone again
/// ```
public final class LazyOverlay {
    /// The unit of a torn write: a power loss tears a write between pages, never inside one.
    public static let pageSize = 4096
    /// The control file at the mount's root (`drop`, `drop torn`; reading it gives the status).
    public static let controlName = ".lazyfs-control"
    /// Where removed and replaced files wait in the backing directory until their removal is durable.
    public static let stashName = ".lazyfs-stash"

    /// The unsynced state of one file.
    struct FileOverlay {
        /// Page index → the page's whole content as the mount shows it.
        var pages: [Int: [UInt8]] = [:]
        /// The size the mount shows.
        var size: Int
        /// Backing bytes at or past this offset read as zeros (an unsynced truncate hid them).
        var visibleBacking: Int
        /// The newest write to this file (for a torn drop) and its place in the write order.
        var last: (offset: Int, bytes: [UInt8], sequence: Int)?
    }

    /// One namespace change that a drop would undo.
    enum Undo {
        case created(String)
        case madeDirectory(String)
        case removed(String, stash: String)
        case removedDirectory(String, mode: mode_t)
        case renamed(from: String, to: String, displaced: String?, displacedDirectoryMode: mode_t?)
    }

    struct NamespaceEntry {
        var undo: Undo
        /// The directories whose fsync makes this change durable.
        var directories: [String]
    }

    /// What a drop did.
    public struct DropReport: Sendable, Equatable, CustomStringConvertible {
        public var filesDropped = 0
        public var bytesDropped = 0
        public var namespaceUndone = 0
        /// Undo steps that could not be carried out (a later synced change moved what they undo).
        public var undoFailures = 0
        /// `path offset+kept/length` of the torn write, when one was torn.
        public var torn: String?
        public var description: String {
            "dropped \(filesDropped) files (\(bytesDropped) bytes), undid \(namespaceUndone) namespace changes"
                + (undoFailures > 0 ? " (\(undoFailures) could not be undone)" : "")
                + (torn.map { ", tore \($0)" } ?? "")
        }
    }

    public let backing: String
    var files: [String: FileOverlay] = [:]
    var namespace: [NamespaceEntry] = []
    private var descriptors: [String: Int32] = [:]
    private var writeSequence = 0
    var stashCounter = 0
    public private(set) var drops = 0

    /// Over the directory `backing` (which must exist).
    public init(backing: String) {
        var b = backing
        while b.count > 1, b.hasSuffix("/") { b.removeLast() }
        self.backing = b
    }

    deinit { closeDescriptors() }

    // MARK: Status

    /// Files with unsynced data.
    public var unsyncedFiles: Int { files.count }
    /// Bytes held in unsynced pages.
    public var unsyncedBytes: Int { files.values.reduce(0) { $0 + $1.pages.count * Self.pageSize } }
    /// Namespace changes not yet durable.
    public var unsyncedNamespaceChanges: Int { namespace.count }

    /// What reading the control file shows.
    public var status: String {
        "unsynced-files \(files.count)\nunsynced-bytes \(unsyncedBytes)\nunsynced-namespace \(namespace.count)\ndrops \(drops)\n"
    }

    // MARK: Paths

    func real(_ path: String) -> String { path == "/" ? backing : backing + path }

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// Whether `path` is one of lazyfs's own names, which the mount never shows.
    public static func isHidden(_ path: String) -> Bool {
        path == "/" + stashName || path.hasPrefix("/" + stashName + "/")
    }

    // MARK: Data

    /// The logical size of `path` when it has unsynced state, else nil (the backing file's size holds).
    public func overlaidSize(_ path: String) -> Int? { files[path]?.size }

    /// Reads up to `count` bytes at `offset`: the unsynced pages over the backing file.
    public func read(_ path: String, offset: Int, count: Int) throws -> [UInt8] {
        guard count > 0, offset >= 0 else { return [] }
        let fd = try descriptor(path)
        guard let overlay = files[path] else {
            var out = [UInt8](repeating: 0, count: count)
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            guard n >= 0 else { throw LazyError(errno, "read \(path)") }
            out.removeLast(count - n)
            return out
        }
        let end = min(offset + count, overlay.size)
        guard end > offset else { return [] }
        var out = [UInt8](repeating: 0, count: end - offset)
        let backingEnd = min(end, overlay.visibleBacking)
        if backingEnd > offset {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress, backingEnd - offset, off_t(offset)) }
            guard n >= 0 else { throw LazyError(errno, "read \(path)") }
        }
        for page in (offset / Self.pageSize)...((end - 1) / Self.pageSize) {
            guard let bytes = overlay.pages[page] else { continue }
            let pageStart = page * Self.pageSize
            let from = max(offset, pageStart), to = min(end, pageStart + Self.pageSize)
            out.replaceSubrange((from - offset)..<(to - offset), with: bytes[(from - pageStart)..<(to - pageStart)])
        }
        return out
    }

    /// Writes `bytes` at `offset` into memory; the backing file is untouched until a sync.
    public func write(_ path: String, offset: Int, bytes: UnsafeRawBufferPointer) throws {
        guard offset >= 0 else { throw LazyError(EINVAL, "write \(path)") }
        var overlay = try overlayFor(path)
        let count = bytes.count
        if count > 0 {
            let fd = try descriptor(path)
            for page in (offset / Self.pageSize)...((offset + count - 1) / Self.pageSize) {
                let pageStart = page * Self.pageSize
                var content = try overlay.pages[page] ?? basePage(fd: fd, page: page, overlay: overlay)
                let from = max(offset, pageStart), to = min(offset + count, pageStart + Self.pageSize)
                content.withUnsafeMutableBytes { dst in
                    dst.baseAddress!.advanced(by: from - pageStart).copyMemory(
                        from: bytes.baseAddress!.advanced(by: from - offset), byteCount: to - from)
                }
                overlay.pages[page] = content
            }
            overlay.size = max(overlay.size, offset + count)
            writeSequence += 1
            overlay.last = (offset, Array(bytes), writeSequence)
        }
        files[path] = overlay
    }

    /// `write` from an array (tests, the control file).
    public func write(_ path: String, offset: Int, bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write(path, offset: offset, bytes: $0) }
    }

    /// Sets the size in memory (an unsynced truncate, shrinking or growing).
    public func truncate(_ path: String, size: Int) throws {
        guard size >= 0 else { throw LazyError(EINVAL, "truncate \(path)") }
        var overlay = try overlayFor(path)
        if size < overlay.size {
            for page in overlay.pages.keys where page * Self.pageSize >= size { overlay.pages[page] = nil }
            let tailPage = size / Self.pageSize
            if var tail = overlay.pages[tailPage] {
                for i in (size - tailPage * Self.pageSize)..<Self.pageSize { tail[i] = 0 }
                overlay.pages[tailPage] = tail
            }
            overlay.visibleBacking = min(overlay.visibleBacking, size)
        }
        overlay.size = size
        files[path] = overlay
    }

    /// fsync / fdatasync: the file's pages and size reach the backing file, which is synced.
    public func sync(_ path: String) throws {
        let fd = try descriptor(path)
        if let overlay = files[path] {
            // Bytes an unsynced truncate hid must read as zeros: cut the backing file there first.
            if ftruncate(fd, off_t(overlay.visibleBacking)) != 0 { throw LazyError(errno, "sync \(path)") }
            for (page, bytes) in overlay.pages.sorted(by: { $0.key < $1.key }) {
                let start = page * Self.pageSize
                let length = min(Self.pageSize, overlay.size - start)
                guard length > 0 else { continue }
                let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, length, off_t(start)) }
                if n != length { throw LazyError(n < 0 ? errno : EIO, "sync \(path)") }
            }
            if ftruncate(fd, off_t(overlay.size)) != 0 { throw LazyError(errno, "sync \(path)") }
            files[path] = nil
        }
        if fsync(fd) != 0 { throw LazyError(errno, "sync \(path)") }
    }

    private func overlayFor(_ path: String) throws -> FileOverlay {
        if let o = files[path] { return o }
        var st = stat()
        guard lstat(real(path), &st) == 0 else { throw LazyError(errno, "stat \(path)") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw LazyError(EISDIR, "write \(path)") }
        return FileOverlay(size: Int(st.st_size), visibleBacking: Int(st.st_size))
    }

    private func basePage(fd: Int32, page: Int, overlay: FileOverlay) throws -> [UInt8] {
        var content = [UInt8](repeating: 0, count: Self.pageSize)
        let start = page * Self.pageSize
        let visible = min(Self.pageSize, overlay.visibleBacking - start)
        if visible > 0 {
            let n = content.withUnsafeMutableBytes { pread(fd, $0.baseAddress, visible, off_t(start)) }
            guard n >= 0 else { throw LazyError(errno, "read") }
        }
        return content
    }

    // MARK: Descriptors

    /// A backing descriptor for `path`, opened read-write (read-only when that is all it allows).
    func descriptor(_ path: String) throws -> Int32 {
        if let fd = descriptors[path] { return fd }
        var fd = Glibc.open(real(path), O_RDWR | O_CLOEXEC)
        if fd < 0, errno == EACCES || errno == EISDIR || errno == EROFS {
            fd = Glibc.open(real(path), O_RDONLY | O_CLOEXEC)
        }
        guard fd >= 0 else { throw LazyError(errno, "open \(path)") }
        descriptors[path] = fd
        return fd
    }

    /// Forgets the descriptors of `path` and everything under it (it moved or went away).
    func forgetDescriptors(under path: String) {
        for key in descriptors.keys where key == path || key.hasPrefix(path + "/") {
            close(descriptors.removeValue(forKey: key)!)
        }
    }

    func closeDescriptors() {
        for fd in descriptors.values { close(fd) }
        descriptors = [:]
    }

    // MARK: Writeback

    /// Everything unsynced becomes durable, as if every file and every directory were fsynced
    /// (the `writeback` command). Returns how many files it wrote.
    @discardableResult
    public func writeback() throws -> Int {
        let paths = files.keys.sorted()
        for path in paths { try sync(path) }
        let directories = namespace.flatMap(\.directories)
        var seen: [String] = []
        for d in directories where !seen.contains(d) { seen.append(d) }
        for d in seen { try syncDirectory(d) }
        return paths.count
    }

    // MARK: Drop

    /// The power loss: every unsynced page is forgotten and every unsynced namespace change
    /// undone, newest first. With `torn`, the newest unsynced write first reaches the disk up to
    /// its first page boundary (the rest of it is lost with everything else); a write inside one
    /// page reaches it whole, as a page is written atomically.
    @discardableResult
    public func drop(torn: Bool) -> DropReport {
        var report = DropReport()
        if torn,
            let (path, overlay) = files.max(by: { ($0.value.last?.sequence ?? 0) < ($1.value.last?.sequence ?? 0) }),
            let last = overlay.last
        {
            let boundary = (last.offset / Self.pageSize + 1) * Self.pageSize
            let kept = min(last.bytes.count, boundary - last.offset)
            if let fd = try? descriptor(path) {
                let n = last.bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, kept, off_t(last.offset)) }
                if n == kept { _ = fsync(fd) }
                report.torn = "\(path) \(last.offset)+\(n < 0 ? 0 : n)/\(last.bytes.count)"
            }
        }
        report.filesDropped = files.count
        report.bytesDropped = unsyncedBytes
        files = [:]
        closeDescriptors()
        for entry in namespace.reversed() {
            if undo(entry.undo) { report.namespaceUndone += 1 } else { report.undoFailures += 1 }
        }
        namespace = []
        drops += 1
        return report
    }
}

/// An operation that failed with `errno` (the FUSE glue answers `-errno`).
public struct LazyError: Error, CustomStringConvertible {
    public var code: Int32
    public var operation: String
    public init(_ code: Int32, _ operation: String) {
        self.code = code
        self.operation = operation
    }
    public var description: String { "\(operation): \(String(cString: strerror(code)))" }
}
