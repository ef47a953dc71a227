import Foundation
import NIOCore
import NIOPosix
import WhaleRun

/// Whether Swift concurrency runs on NIO's event loops in this process, and on how many.
///
/// By default, an `async` virtual user that wakes from `Task.sleep` runs on Dispatch's
/// cooperative pool (woken by Dispatch's timer thread), and the frame it sends then hops to its
/// socket's event loop: three threads and two wake-ups per op. With NIO's loops as the global
/// executor, timers, tasks and frames share the loops' threads (measured in
/// docs/decisions/0028-swift-concurrency-on-nio-event-loops.md).
/// `WHALESIM_EXECUTOR=dispatch` keeps Dispatch's pool (to compare, or if a platform lacks the hook).
enum LiveExecutor {
    /// The subcommands whose work is mostly sockets. Not `serve`: the reference server is correct
    /// on either executor (issue 21), but with it on NIO's loops the bench's steady op→ack p50 and
    /// p99 were worse in each of 3 interleaved pairs of runs
    /// (docs/decisions/0027-server-delivery-always-queued-serve-on-dispatch.md).
    static let liveCommands: Set<String> = ["run", "bench", "conform"]

    /// The option that sets the runner's event loops. It must be read before ArgumentParser runs:
    /// the loops are made once, when the first task starts. The commands that declare it
    /// (`run`, `bench run`) validate it again and refuse a bad value with a clear message.
    static let threadsOption = "--runner-threads"

    /// The runner's event loops when `--runner-threads` is not given: one per core, NIO's own
    /// default. One loop on this two-core machine costs 16% less CPU per op at the bench's 2,000
    /// ops/s offered (more sockets ready per wake-up, no hop between loops), but leaves the runner
    /// one core for a restart's reconnect storm: the soak saw the runner saturated 12 s in 6
    /// stretches against 4–5 s with two (docs/decisions/0033-runner-event-loops-one-per-core.md).
    static var defaultThreads: Int { System.coreCount }

    /// The commands whose process is a load runner: `run` and `bench run`.
    static func isLoadRunner(_ arguments: [String]) -> Bool {
        guard arguments.count > 1 else { return false }
        return arguments[1] == "run" || (arguments[1] == "bench" && arguments.count > 2 && arguments[2] == "run")
    }

    /// A load runner keeps one glibc arena (``FreedHeap/limitArenas(to:)`` says why), set before
    /// any thread starts; `WHALESIM_MALLOC_ARENAS=N` sets another cap, `0` leaves glibc's own.
    /// Child processes (the embedded server) are not touched.
    static func limitArenasIfWanted(arguments: [String]) {
        guard isLoadRunner(arguments) else { return }
        var wanted = 1
        if let value = ProcessInfo.processInfo.environment["WHALESIM_MALLOC_ARENAS"] {
            if let n = Int(value), n >= 0 {
                wanted = n
            } else {
                FileHandle.standardError.write(
                    Data(
                        "whalesim: WHALESIM_MALLOC_ARENAS=\(value): expected a whole number (0 for glibc's own arenas); keeping one arena\n"
                            .utf8))
            }
        }
        if wanted > 0 { FreedHeap.limitArenas(to: wanted) }
    }

    static func installIfWanted(arguments: [String]) {
        guard arguments.count > 1, liveCommands.contains(arguments[1]) else { return }
        NIOSingletons.groupLoopCountSuggestion = threads(in: arguments) ?? defaultThreads
        guard ProcessInfo.processInfo.environment["WHALESIM_EXECUTOR"] != "dispatch" else { return }
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }

    /// `--runner-threads N` or `--runner-threads=N` among `arguments`, when N is a valid count
    /// (1...256); anything else is left for the command to refuse.
    static func threads(in arguments: [String]) -> Int? {
        var value: String?
        for (i, argument) in arguments.enumerated() {
            if argument == threadsOption, i + 1 < arguments.count { value = arguments[i + 1] }
            if argument.hasPrefix(threadsOption + "=") { value = String(argument.dropFirst(threadsOption.count + 1)) }
        }
        guard let value, let n = Int(value), validThreads.contains(n) else { return nil }
        return n
    }

    static let validThreads = 1...256
}
