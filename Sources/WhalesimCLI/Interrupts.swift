import Dispatch
import Foundation
import WhaleRun
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM for the long-running commands (`run`, `serve`, `fake-salesforce`,
/// `simulate --seeds`): the first asks for a clean stop (`first` runs once, with the signal's
/// name); a second one stops every registered child and removes every registered temporary
/// directory (``RunCleanup``) and exits at once with 128 + the signal's number (130 for SIGINT,
/// 143 for SIGTERM), as a shell reports a process killed by that signal.
///
/// ```swift
/// Interrupts.install { signal in run.interrupt(signal) }
/// ```
enum Interrupts {
    /// The exit code of a second signal: 128 + its number.
    static func immediateExitCode(_ signal: Int32) -> Int32 { 128 + signal }

    private static let sources = LockedSources()

    /// Installs the handlers (once per process; a later call replaces `first`). `announce`:
    /// say on stderr that a clean stop began (a run's `serve` child, stopped by its parent at
    /// every run's end, keeps quiet).
    static func install(announce: Bool = true, first: @escaping @Sendable (String) -> Void) {
        sources.install(announce: announce, first: first)
    }
}

private final class LockedSources: @unchecked Sendable {
    private let lock = NSLock()
    private var installed: [any DispatchSourceSignal] = []
    private var first: (@Sendable (String) -> Void)?
    private var received = 0
    private var announce = true

    func install(announce: Bool, first: @escaping @Sendable (String) -> Void) {
        lock.withLock {
            self.first = first
            self.announce = announce
            guard installed.isEmpty else { return }
            for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
                // Dispatch sees the signal only while the default action (terminate) is off.
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [weak self] in self?.received(number, name) }
                source.resume()
                installed.append(source)
            }
        }
    }

    private func received(_ number: Int32, _ name: String) {
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
