import Foundation
import NIOConcurrencyHelpers
#if canImport(Glibc)
    import Glibc
#endif

/// Reads one pipe on a thread of its own until end of file and keeps what it read.
///
/// Not a `FileHandle.readabilityHandler`: that is a dispatch read source, and a pipe closed (or
/// its descriptor number reused by the next mount's pipes) while libdispatch still watched it
/// crashed the whole process in `_dispatch_event_loop_drain` (a CI run, the power-loss tests).
/// The thread owns the handle, so the descriptor closes only after its last read returned.
final class PipeDrain: @unchecked Sendable {
    /// What was read so far; callers may take lines out of it.
    let text = NIOLockedValueBox("")
    private let ended = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle, name: String) {
        let thread = Thread { [text, ended] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }
                // The child prints ASCII lines, so a read never splits a character.
                text.withLockedValue { $0 += String(decoding: buffer[0..<n], as: UTF8.self) }
            }
            ended.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Waits until the writer's end closed (every process holding it exited); false on timeout,
    /// and the thread then keeps the handle open until it ends.
    @discardableResult
    func waitForEnd(seconds: Double) -> Bool {
        ended.wait(timeout: .now() + seconds) == .success
    }
}
