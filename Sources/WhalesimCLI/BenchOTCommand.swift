import ArgumentParser

/// Placeholder until the OT benchmark lands.
struct BenchOTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ot", abstract: "Not built yet.")
    func run() async throws { throw ExitStatus.inconclusive }
}
