import ArgumentParser
import Foundation

/// `whalesim docs` (hidden): pages generated from the commands themselves, and the parse check
/// of their examples. Hidden because it serves the repository, not a user of the tool.
///
/// ```
/// whalesim docs commands > docs/commands.md
/// echo '["simulate","convergence-smoke","--seed","7"]' | whalesim docs parse
/// ```
struct DocsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docs",
        abstract: "Print documentation generated from the commands themselves.",
        shouldDisplay: false,
        subcommands: [DocsCommandsCommand.self, DocsParseCommand.self]
    )
}

/// `whalesim docs commands`: docs/commands.md, every command's `--help` (``CommandsPage``).
struct DocsCommandsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commands",
        abstract: "Print docs/commands.md (every command's help, generated), then exit.",
        shouldDisplay: false
    )

    func run() throws {
        print(CommandsPage.markdown(), terminator: "")
    }
}

/// `whalesim docs parse`: parses command lines as `whalesim` would, without running them, so a
/// test can check every example in the help in one process (the tests do not link the CLI).
struct DocsParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Parse command lines without running them: a JSON array of arguments a line on stdin.",
        discussion: """
            Prints a line per input line: "ok COMMAND" (the full name of the command it parses to), \
            or "error: MESSAGE" (what whalesim would say). Exits 0 when every line parsed, else 64.
            """,
        shouldDisplay: false
    )

    func run() throws {
        var failed = false
        while let line = readLine() {
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            guard let data = line.data(using: .utf8),
                let arguments = (try? JSONSerialization.jsonObject(with: data)) as? [String]
            else {
                print("error: not a JSON array of strings: \(line)")
                failed = true
                continue
            }
            let outcome = Self.parse(arguments)
            print(outcome)
            if outcome.hasPrefix("error") { failed = true }
        }
        if failed { throw ExitStatus.badInput }
    }

    /// "ok COMMAND" or "error: MESSAGE"; `--help` and `help X` parse (ArgumentParser ends them with
    /// a clean exit, which is a success).
    static func parse(_ arguments: [String]) -> String {
        do {
            let command = try Whalesim.parseAsRoot(arguments)
            let parsed = ObjectIdentifier(type(of: command))
            let name = CommandsPage.entries().first { ObjectIdentifier($0.type) == parsed }?.name
            return "ok \(name ?? String(describing: type(of: command)))"
        } catch {
            if Whalesim.exitCode(for: error).isSuccess { return "ok help" }
            return "error: \(Whalesim.message(for: error))"
        }
    }
}
