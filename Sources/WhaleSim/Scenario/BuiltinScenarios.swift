import Foundation

/// The named scenarios compiled into the binary (kept identical to `Scenarios/*.yml` by
/// `Scenarios/embed.py`; a test compares them), so `whalesim simulate unicode` works anywhere.
public enum BuiltinScenarios {
    public static var names: [String] { texts.map(\.name) }

    /// The built-in scenario called `name`, or nil.
    public static func scenario(named name: String) throws(ScenarioError) -> Scenario? {
        guard let entry = texts.first(where: { $0.name == name }) else { return nil }
        return try Scenario.decode(yaml: entry.yaml, source: "built-in scenario \(name)")
    }

    /// A built-in name or a path to a `.yml` file. Unreadable files and unknown names are
    /// reported as a ``ScenarioError`` too, so the CLI has one error path (exit 64).
    public static func load(_ nameOrPath: String) throws(ScenarioError) -> Scenario {
        if let scenario = try scenario(named: nameOrPath) { return scenario }
        let looksLikePath = nameOrPath.contains("/") || nameOrPath.hasSuffix(".yml") || nameOrPath.hasSuffix(".yaml")
        guard looksLikePath else {
            throw ScenarioError(
                source: nameOrPath,
                problems: [
                    "no such built-in scenario (built-ins: \(names.joined(separator: ", "))); give a path to load a file"
                ])
        }
        guard let data = FileManager.default.contents(atPath: nameOrPath) else {
            throw ScenarioError(source: nameOrPath, problems: ["cannot read the file"])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ScenarioError(source: nameOrPath, problems: ["the file is not valid UTF-8"])
        }
        return try Scenario.decode(yaml: text, source: nameOrPath)
    }
}
