import ArgumentParser

/// `whalesim bench ...`: speed and memory benchmarks. Run them on a release build
/// (`swift run -c release whalesim bench ot`); each prints its figures with the command that measured them.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure speed and memory (use a release build).",
        discussion: """
            Examples:
              swift run -c release whalesim bench ot
              swift run -c release whalesim bench sim --seeds 50 --repetitions 3
            """,
        subcommands: [
            BenchOTCommand.self, BenchJSONCommand.self, BenchSimCommand.self, BenchSalesforceCommand.self,
            BenchServerCommand.self, BenchRunCommand.self, BenchRawServerCommand.self, BenchHTTPCommand.self,
            BenchSessionCommand.self,
        ]
    )
}
