#if canImport(Glibc)
    import Glibc
#endif

/// Creates, removes and renames: carried out in the backing directory at once (so every other
/// call sees them), logged with their undo until an fsync of a directory they touch. A removed
/// or replaced file is moved to the stash rather than deleted, so a drop can bring it back.
extension LazyOverlay {
    /// Creates a regular file (`O_CREAT`); `exclusive` is `O_EXCL`, `truncate` is `O_TRUNC`.
    public func create(_ path: String, mode: mode_t, exclusive: Bool = false, truncate: Bool = false) throws {
        var st = stat()
        let existed = lstat(real(path), &st) == 0
        if existed, exclusive { throw LazyError(EEXIST, "create \(path)") }
        if !existed {
            let fd = Glibc.open(real(path), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode)
            guard fd >= 0 else { throw LazyError(errno, "create \(path)") }
            close(fd)
            namespace.append(NamespaceEntry(undo: .created(path), directories: [Self.parent(path)]))
        } else if truncate {
            try self.truncate(path, size: 0)
        }
    }

    /// Opens an existing file: checks it is there; `O_TRUNC` truncates in memory.
    public func open(_ path: String, truncate: Bool) throws {
        var st = stat()
        guard lstat(real(path), &st) == 0 else { throw LazyError(errno, "open \(path)") }
        if truncate, (st.st_mode & S_IFMT) == S_IFREG { try self.truncate(path, size: 0) }
    }

    public func mkdir(_ path: String, mode: mode_t) throws {
        guard Glibc.mkdir(real(path), mode) == 0 else { throw LazyError(errno, "mkdir \(path)") }
        namespace.append(NamespaceEntry(undo: .madeDirectory(path), directories: [Self.parent(path)]))
    }

    /// Removes a file: it waits in the stash until the removal is durable.
    public func unlink(_ path: String) throws {
        var st = stat()
        guard lstat(real(path), &st) == 0 else { throw LazyError(errno, "unlink \(path)") }
        guard (st.st_mode & S_IFMT) != S_IFDIR else { throw LazyError(EISDIR, "unlink \(path)") }
        let stash = try stashPath()
        forgetDescriptors(under: path)
        guard Glibc.rename(real(path), real(stash)) == 0 else { throw LazyError(errno, "unlink \(path)") }
        files[path] = nil
        namespace.append(NamespaceEntry(undo: .removed(path, stash: stash), directories: [Self.parent(path)]))
    }

    public func rmdir(_ path: String) throws {
        var st = stat()
        guard lstat(real(path), &st) == 0 else { throw LazyError(errno, "rmdir \(path)") }
        guard Glibc.rmdir(real(path)) == 0 else { throw LazyError(errno, "rmdir \(path)") }
        namespace.append(
            NamespaceEntry(undo: .removedDirectory(path, mode: st.st_mode & 0o7777), directories: [Self.parent(path)]))
    }

    /// Renames `from` to `to`, replacing a file there (kept in the stash until durable).
    public func rename(_ from: String, to: String) throws {
        guard from != to else { return }
        var source = stat(), target = stat()
        guard lstat(real(from), &source) == 0 else { throw LazyError(errno, "rename \(from)") }
        var displaced: String?
        var displacedDirectoryMode: mode_t?
        if lstat(real(to), &target) == 0 {
            let targetIsDirectory = (target.st_mode & S_IFMT) == S_IFDIR,
                sourceIsDirectory = (source.st_mode & S_IFMT) == S_IFDIR
            if targetIsDirectory != sourceIsDirectory {
                throw LazyError(targetIsDirectory ? EISDIR : ENOTDIR, "rename \(from) \(to)")
            }
            if targetIsDirectory {
                displacedDirectoryMode = target.st_mode & 0o7777  // an empty directory; rename(2) refuses any other
            } else {
                let stash = try stashPath()
                forgetDescriptors(under: to)
                guard Glibc.rename(real(to), real(stash)) == 0 else { throw LazyError(errno, "rename \(from) \(to)") }
                displaced = stash
                files[to] = nil
            }
        }
        forgetDescriptors(under: from)
        forgetDescriptors(under: to)
        guard Glibc.rename(real(from), real(to)) == 0 else {
            let failure = errno
            if let displaced { _ = Glibc.rename(real(displaced), real(to)) }
            throw LazyError(failure, "rename \(from) \(to)")
        }
        moveOverlays(from: from, to: to)
        namespace.append(
            NamespaceEntry(
                undo: .renamed(
                    from: from, to: to, displaced: displaced, displacedDirectoryMode: displacedDirectoryMode),
                directories: [Self.parent(from), Self.parent(to)]))
    }

    /// fsync of a directory: every change it touched becomes durable (removed files leave the stash).
    public func syncDirectory(_ path: String) throws {
        var kept: [NamespaceEntry] = []
        for entry in namespace {
            guard entry.directories.contains(path) else { kept.append(entry); continue }
            switch entry.undo {
            case .removed(_, let stash): _ = Glibc.unlink(real(stash))
            case .renamed(_, _, let displaced?, _): _ = Glibc.unlink(real(displaced))
            default: break
            }
        }
        namespace = kept
        let fd = Glibc.open(real(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw LazyError(errno, "fsyncdir \(path)") }
        defer { close(fd) }
        if fsync(fd) != 0 { throw LazyError(errno, "fsyncdir \(path)") }
    }

    /// Carries out one undo; false when the backing directory no longer allows it.
    func undo(_ undo: Undo) -> Bool {
        switch undo {
        case .created(let path):
            return Glibc.unlink(real(path)) == 0
        case .madeDirectory(let path):
            return Glibc.rmdir(real(path)) == 0
        case .removed(let path, let stash):
            return Glibc.rename(real(stash), real(path)) == 0
        case .removedDirectory(let path, let mode):
            return Glibc.mkdir(real(path), mode) == 0
        case .renamed(let from, let to, let displaced, let directoryMode):
            guard Glibc.rename(real(to), real(from)) == 0 else { return false }
            if let displaced { return Glibc.rename(real(displaced), real(to)) == 0 }
            if let directoryMode { return Glibc.mkdir(real(to), directoryMode) == 0 }
            return true
        }
    }

    /// A fresh name in the stash (created on first use), as a mount path.
    private func stashPath() throws -> String {
        let directory = "/" + Self.stashName
        var st = stat()
        if lstat(real(directory), &st) != 0, Glibc.mkdir(real(directory), 0o700) != 0, errno != EEXIST {
            throw LazyError(errno, "mkdir \(directory)")
        }
        while true {
            stashCounter += 1
            let path = "\(directory)/\(stashCounter)"
            if lstat(real(path), &st) != 0 { return path }
        }
    }

    /// The unsynced state follows a renamed file, or every file under a renamed directory.
    private func moveOverlays(from: String, to: String) {
        for key in files.keys.sorted() where key == from || key.hasPrefix(from + "/") {
            files[to + key.dropFirst(from.count)] = files.removeValue(forKey: key)
        }
    }
}
