/// Everything wrong with a scenario file, reported at once: one line per problem, each
/// starting with the path of the offending value (`clients.count: expected an integer, got "x"`).
public struct ScenarioError: Error, Hashable, Sendable, CustomStringConvertible {
    public var source: String
    public var problems: [String]

    public init(source: String, problems: [String]) {
        self.source = source
        self.problems = problems
    }

    public var description: String {
        let noun = problems.count == 1 ? "problem" : "problems"
        return "\(source): \(problems.count) \(noun)\n" + problems.map { "  \($0)" }.joined(separator: "\n")
    }
}
