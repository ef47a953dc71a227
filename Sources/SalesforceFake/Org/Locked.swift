import Foundation

/// A value guarded by a lock. `NSLock` rather than `Synchronization.Mutex` so the package keeps
/// its macOS 14 deployment target.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
