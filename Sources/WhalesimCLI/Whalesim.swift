import ArgumentParser

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
            3 inconclusive, 64 bad usage or bad input file.
            """,
        subcommands: [
            RunCommand.self,
            MergeCommand.self,
            SimulateCommand.self,
            ReproduceCommand.self,
            ReportCommand.self,
            HistoryCommand.self,
            OTCommand.self,
            ServeCommand.self,
            FakeSalesforceCommand.self,
            BenchCommand.self,
            LazyFSCommand.self,
            FuzzCommand.self,
            ConformCommand.self,
        ]
    )
}
