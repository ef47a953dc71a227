import Foundation
import NIOCore
import NIOPosix

/// Whether Swift concurrency runs on NIO's event loops in this process.
///
/// By default, an `async` virtual user that wakes from `Task.sleep` runs on Dispatch's
/// cooperative pool (woken by Dispatch's timer thread), and the frame it sends then hops to its
/// socket's event loop: three threads and two wake-ups per op. With NIO's loops as the global
/// executor, timers, tasks and frames share the loops' threads (measured in docs/decisions.md).
/// `WHALESIM_EXECUTOR=dispatch` keeps Dispatch's pool (to compare, or if a platform lacks the hook).
enum LiveExecutor {
    /// The subcommands whose work is mostly sockets. Not `serve`: the reference server is correct
    /// on either executor (issue 21), but with it on NIO's loops the bench's steady op→ack p50 and
    /// p99 were worse in each of 3 interleaved pairs of runs (docs/decisions.md, "The reference
    /// server under another executor").
    static let liveCommands: Set<String> = ["run", "bench", "conform"]

    static func installIfWanted(arguments: [String]) {
        guard arguments.count > 1, liveCommands.contains(arguments[1]) else { return }
        guard ProcessInfo.processInfo.environment["WHALESIM_EXECUTOR"] != "dispatch" else { return }
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }
}
