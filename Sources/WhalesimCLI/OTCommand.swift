import ArgumentParser

/// Placeholder until the OT tools land.
struct OTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ot", abstract: "Not built yet.")
    func run() async throws { throw ExitStatus.inconclusive }
}
