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
/// A plain signal handler writes the signal's number to a pipe that a thread of its own reads.
/// The handler is in place when `install` returns: a Dispatch signal source is armed later, on
/// Dispatch's own thread, and a signal that came in between (a parent signalling as soon as it
/// read our URL) was lost.
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

/// The write end of the signal pipe, read by the handler (async-signal-safe: one `write`).
nonisolated(unsafe) private var signalPipe: Int32 = -1

private func writeSignalNumber(_ number: Int32) {
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipe, &byte, 1)
}

private final class InterruptState: @unchecked Sendable {
    private let lock = NSLock()
    private var installed = false
    private var first: (@Sendable (String) -> Void)?
    private var received = 0
    private var announce = true

    func install(announce: Bool, first: @escaping @Sendable (String) -> Void) {
        lock.withLock {
            self.first = first
            self.announce = announce
            guard !installed else { return }
            installed = true
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { return }
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            signalPipe = fds[1]
            let reader = Thread { [fds] in
                var byte: UInt8 = 0
                while true {
                    let n = read(fds[0], &byte, 1)
                    if n == 1 { self.received(Int32(byte)) } else if n < 0, errno == EINTR { continue } else { return }
                }
            }
            reader.start()
            for number in [SIGINT, SIGTERM] {
                var action = sigaction()
                action.__sigaction_handler.sa_handler = writeSignalNumber
                sigemptyset(&action.sa_mask)
                action.sa_flags = SA_RESTART
                sigaction(number, &action, nil)
            }
        }
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
