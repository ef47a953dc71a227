import Foundation
import NIOConcurrencyHelpers

/// Reads one pipe on a thread of its own until end of file and keeps what it read.
///
/// Not a `FileHandle.readabilityHandler`: that is a dispatch read source, and a pipe closed (or
/// its descriptor number reused by the next mount's pipes) while libdispatch still watched it
/// crashed the whole process in `_dispatch_event_loop_drain` (a CI run, the power-loss tests).
/// The thread owns the handle, so the descriptor closes only after its last read returned.
final class PipeDrain: Sendable {
    private let text = NIOLockedValueBox("")
    private let ended = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle, name: String) {
        let thread = Thread { [text, ended] in
            // A blocking read; empty at end of file. The child prints ASCII, so no read splits a character.
            while case let data = handle.availableData, !data.isEmpty {
                text.withLockedValue { $0 += String(decoding: data, as: UTF8.self) }
            }
            ended.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Everything read so far.
    var all: String { text.withLockedValue { $0 } }

    /// Takes the first whole line that contains `marker` out of what was read (with every line
    /// before it); the rest of that line after the marker, or nil when there is none yet.
    func takeLine(containing marker: String) -> String? {
        text.withLockedValue { text -> String? in
            guard let range = text.range(of: marker) else { return nil }
            guard let end = text[range.upperBound...].firstIndex(of: "\n") else { return nil }
            let rest = String(text[range.upperBound..<end])
            text.removeSubrange(text.startIndex...end)
            return rest
        }
    }

    /// Waits until the writer's end closed (every process holding it exited); false on timeout,
    /// and the thread then keeps the handle open until it ends.
    @discardableResult
    func waitForEnd(seconds: Double) -> Bool {
        ended.wait(timeout: .now() + seconds) == .success
    }
}
