import Foundation

/// An append-only scratch file that ``PackedEvents`` moves its full chunks to, so a live run's
/// history lives on disk while the run goes on and the runner's memory stays flat however long
/// it runs (issue 21: a soak grew the runner by the packed history, some 0.2 MB a second).
///
/// The file is created in `TMPDIR` (else `/tmp`) and unlinked at once: nothing is left behind
/// when the process ends, however it ends. Writes only ever add at the end, and a chunk is read
/// back only after it was written, so readers on other threads need no lock; the lock guards the
/// end offset, which also tells a copy of a ``PackedEvents`` whether it is still the file's
/// writer (``append(_:at:)``).
final class SpillFile: @unchecked Sendable {
    private let fd: Int32
    private let lock = NSLock()
    private var end = 0

    /// A fresh unlinked file, or nil when none can be made (no writable temporary directory):
    /// the caller keeps its chunks in memory then.
    init?(directory: String? = nil) {
        let dir = directory ?? ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template =
            Array((dir.hasSuffix("/") ? dir : dir + "/").utf8CString.dropLast())
            + Array("whalesim-history-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Bytes written so far.
    var size: Int { lock.withLock { end } }

    /// Writes `bytes` at the end if the end is `offset` (the caller wrote everything before it);
    /// false when another writer got there first, or the write failed (a full disk): nothing is
    /// then taken as written, and the caller keeps the bytes.
    func append(_ bytes: [UInt8], at offset: Int) -> Bool {
        lock.withLock {
            guard end == offset else { return false }
            var done = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes {
                    pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(offset + done))
                }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            end = offset + bytes.count
            return true
        }
    }

    /// The `count` bytes at `offset`, which were written before (a chunk).
    func read(at offset: Int, count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if n < 0, errno == EINTR { continue }
            // A chunk that was written cannot be short unless the file was damaged under us.
            precondition(
                n > 0,
                "SpillFile: could not read back bytes \(offset + done)..<\(offset + count) of the history's scratch file (errno \(errno))"
            )
            done += n
        }
        return out
    }
}
