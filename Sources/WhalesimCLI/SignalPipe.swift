import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Signals handled on a thread of their own: a plain handler writes the signal's number to a
/// pipe (one `write`, async-signal-safe) and a reader thread calls `handler`. The handler is in
/// place when `install` returns. A Dispatch signal source is armed later, on Dispatch's own thread,
/// and with the signal ignored meanwhile a signal that came in between (a parent signalling as
/// soon as it read our first line) was lost: `serve` ran on, and `lazyfs` never unmounted.
///
/// ```swift
/// SignalPipe.install([SIGTERM, SIGINT]) { number in stop(number) }
/// ```
enum SignalPipe {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var handler: (@Sendable (Int32) -> Void)?
    nonisolated(unsafe) private static var readerStarted = false

    /// Routes `signals` to `handler` (one handler per process: a later call replaces it and adds
    /// its signals).
    static func install(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        lock.withLock {
            Self.handler = handler
            if !readerStarted {
                var fds: [Int32] = [-1, -1]
                guard pipe(&fds) == 0 else { return }
                for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
                signalPipe = fds[1]
                readerStarted = true
                let reader = Thread { [fds] in
                    // The signals whalesim handles may land on this thread, whatever it inherited.
                    var handled = sigset_t()
                    sigemptyset(&handled)
                    for number in [SIGTERM, SIGINT, SIGHUP, SIGUSR1] { sigaddset(&handled, number) }
                    pthread_sigmask(SIG_UNBLOCK, &handled, nil)
                    var byte: UInt8 = 0
                    while true {
                        let n = read(fds[0], &byte, 1)
                        if n == 1 {
                            let h = lock.withLock { Self.handler }
                            h?(Int32(byte))
                        } else if n < 0, errno == EINTR {
                            continue
                        } else {
                            return
                        }
                    }
                }
                reader.start()
            }
            // A parent may have started us from a thread that blocks these signals (Dispatch's
            // and Swift's pool threads block most), and a child inherits the mask: a SIGTERM
            // then stays pending forever (a test harness's `terminate()` hung on `lazyfs`). Unblock
            // them here, on the thread that installs, and in the reader thread it starts.
            var set = sigset_t()
            sigemptyset(&set)
            for number in signals { sigaddset(&set, number) }
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            for number in signals {
                var action = sigaction()
                action.__sigaction_handler.sa_handler = writeSignalNumber
                sigemptyset(&action.sa_mask)
                action.sa_flags = SA_RESTART
                sigaction(number, &action, nil)
            }
        }
    }
}

/// The write end of the signal pipe, for the handler.
nonisolated(unsafe) private var signalPipe: Int32 = -1

private func writeSignalNumber(_ number: Int32) {
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipe, &byte, 1)
}
