import ArgumentParser
import Foundation
import WhaleEmbedded
import WhaleReports
import WhaleRun
import WhaleSim
import WhaleTelemetry

/// The run a first signal interrupts, kept across the runs of a repeat: a run attached after the
/// signal is interrupted at once.
final class RunInterruption: @unchecked Sendable {
    private let lock = NSLock()
    private var run: LiveRun?
    private var signal: String?

    func attach(_ r: LiveRun) {
        let pending: String? = lock.withLock {
            run = r
            return signal
        }
        if let pending { r.interrupt(pending) }
    }

    func interrupt(_ name: String) {
        let current: LiveRun? = lock.withLock {
            if signal == nil { signal = name }
            return run
        }
        current?.interrupt(name)
    }

    /// The signal received, if any.
    var received: String? { lock.withLock { signal } }
}
