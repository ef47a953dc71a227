import Foundation
import WhaleEmbedded
#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM for the long-running commands (`run`, `serve`, `fake-salesforce`,
/// `simulate --seeds`): the first asks for a clean stop (`first` runs once, with the signal's
/// name); a second one stops every registered child and removes every registered temporary
/// directory (``RunCleanup``) and exits at once with 128 + the signal's number (130 for SIGINT,
/// 143 for SIGTERM), as a shell reports a process killed by that signal.
///
/// The handlers are in place when `install` returns (``SignalPipe``).
///
/// ```swift
/// Interrupts.install { signal in run.interrupt(signal) }
/// ```
enum Interrupts {
    /// The exit code of a second signal: 128 + its number.
    static func immediateExitCode(_ signal: Int32) -> Int32 { 128 + signal }

    private static let state = InterruptState()

    /// Installs the handlers (once per process; a later call replaces `first`). `announce`:
    /// say on stderr that a clean stop began (a run's `serve` child, stopped by its parent at
    /// every run's end, keeps quiet).
    static func install(announce: Bool = true, first: @escaping @Sendable (String) -> Void) {
        state.install(announce: announce, first: first)
    }

    fileprivate static func name(_ number: Int32) -> String {
        number == SIGINT ? "SIGINT" : number == SIGTERM ? "SIGTERM" : "signal \(number)"
    }
}

private final class InterruptState: @unchecked Sendable {
    private let lock = NSLock()
    private var installed = false
    private var first: (@Sendable (String) -> Void)?
    private var received = 0
    private var announce = true

    func install(announce: Bool, first: @escaping @Sendable (String) -> Void) {
        let already = lock.withLock { () -> Bool in
            self.first = first
            self.announce = announce
            defer { installed = true }
            return installed
        }
        if !already { SignalPipe.install([SIGINT, SIGTERM]) { self.received($0) } }
    }

    private func received(_ number: Int32) {
        let name = Interrupts.name(number)
        let (count, handler, announce) = lock.withLock { () -> (Int, (@Sendable (String) -> Void)?, Bool) in
            received += 1
            return (received, first, self.announce)
        }
        if count == 1 {
            if announce { printError("whalesim: \(name): stopping cleanly (a second signal stops at once)") }
            handler?(name)
        } else {
            printError("whalesim: \(name) again: stopping now")
            RunCleanup.emergencyStop()
            // _exit, not exit: other threads are mid-run, and atexit handlers could wait on them.
            fflush(nil)
            _exit(Interrupts.immediateExitCode(number))
        }
    }
}
