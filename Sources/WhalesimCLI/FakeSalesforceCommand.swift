import ArgumentParser

/// `whalesim fake-salesforce` (placeholder until its issue lands).
struct FakeSalesforceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fake-salesforce", abstract: "Not built yet.")
    func run() async throws { throw ExitStatus.inconclusive }
}
