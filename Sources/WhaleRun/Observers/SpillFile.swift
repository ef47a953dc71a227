import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A scratch file the runner writes what it will read back only at the end of the run (the
/// finished seconds of ``LiveMetrics``' per-second histograms): bytes that grow with the length
/// of the run go to disk instead of staying in the runner's memory for the whole run.
///
/// The file is unlinked as soon as it is open, so nothing is left behind however the run ends
/// (a kill included): its blocks go when the descriptor closes. Reads and writes are positional
/// (`pread`/`pwrite`), so the type holds no state of its own beyond the descriptor; whoever
/// places the bytes keeps the offsets. Nil from `init` when no scratch file can be made: the
/// caller keeps the bytes in memory instead.
final class SpillFile: Sendable {
    private let fd: Int32

    /// Creates the scratch file in `directory` (the system's temporary directory by default).
    init?(directory: String = NSTemporaryDirectory()) {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        var template = Array("\(base)whalesim-spill-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Writes all of `bytes` at `offset`; false when the disk refused (full, I/O error).
    func write(_ bytes: [UInt8], at offset: Int64) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes {
                pwrite(fd, $0.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    /// The `count` bytes at `offset`, or nil when they cannot be read back whole.
    func read(at offset: Int64, count: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return nil }
            done += n
        }
        return out
    }
}
