import ArgumentParser
import WhaleRun

/// The `whalesim` command: the root of every subcommand.
///
/// ```
/// whalesim simulate convergence-smoke --seed 1
/// echo '{"doc":"abc","op":[1,"x",2]}' | whalesim ot apply
/// ```
@main
struct Whalesim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whalesim",
        abstract: "Simulate, load-test and verify real-time collaborative CRM apps of the Whaler kind.",
        discussion: """
            Exit codes: 0 pass, 1 threshold breached, 2 correctness violated, \
            3 inconclusive, 64 bad usage or bad input file, 74 checks passed but the run's record \
            could not be written.

            Examples:
              whalesim run
              whalesim simulate convergence-smoke --seed 7
              whalesim help simulate
            """,
        subcommands: [
            RunCommand.self,
            MergeCommand.self,
            SimulateCommand.self,
            ReproduceCommand.self,
            RecordCommand.self,
            ImportHARCommand.self,
            ReportCommand.self,
            HistoryCommand.self,
            CheckCommand.self,
            OTCommand.self,
            ServeCommand.self,
            FakeSalesforceCommand.self,
            BenchCommand.self,
            LazyFSCommand.self,
            FuzzCommand.self,
            ConformCommand.self,
            DocsCommand.self,
        ]
    )
}

extension Whalesim {
    /// Parses and runs the command, as ArgumentParser's own `main` does, after one choice made
    /// before any task starts: a command that drives live sockets (`run`, `bench`, `conform`; not
    /// `serve`) runs Swift concurrency on NIO's event loops (``LiveExecutor``), so a virtual user's
    /// wake-up and the frame it sends stay on one thread instead of hopping between Dispatch's
    /// pool, its timer thread and the socket's loop (docs/decisions/0028-swift-concurrency-on-nio-event-loops.md).
    static func main() async {
        // CI logs that move (issue 46): standard output is line-buffered even when it is a pipe or
        // a file, so each progress line, per-run line and table row of `run --repeat`, `simulate
        // --seeds` and `conform` reaches the log as it is printed, not in one block at exit.
        StandardStreams.lineBufferStandardOutput()
        _ = StartTime.launched  // `run --start-at +SECONDS` counts from here
        // Before any socket or thread: a login shell's 1,024 open files is less than a
        // thousand-client run holds (``OpenFiles``); children (the embedded server) inherit it.
        OpenFiles.raiseSoftLimit()
        LiveExecutor.limitArenasIfWanted(arguments: CommandLine.arguments)
        LiveExecutor.installIfWanted(arguments: CommandLine.arguments)
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
