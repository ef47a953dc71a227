import ArgumentParser
import Foundation

/// docs/commands.md, generated from the commands' own help (`whalesim docs commands`): a table
/// of contents, then per command its full name, its abstract and its `--help` text exactly as
/// `whalesim help COMMAND` prints it, so the page cannot say what the tool does not. A test
/// compares the file with this output.
enum CommandsPage {
    /// The help's width: what a terminal of the usual 80 columns shows, and fixed, so the page does
    /// not depend on the terminal that generated it.
    static let columns = 80

    /// A command of the tree with its full name (`whalesim bench run`).
    struct Entry {
        var name: String
        var type: ParsableCommand.Type
    }

    /// Every command a user sees, root first, each followed by its subcommands in their order
    /// (hidden commands, such as `docs`, left out as `--help` leaves them out).
    static func entries(of type: ParsableCommand.Type = Whalesim.self, prefix: String = "") -> [Entry] {
        let configuration = type.configuration
        guard configuration.shouldDisplay else { return [] }
        let name = prefix + (configuration.commandName ?? String(describing: type))
        return [Entry(name: name, type: type)]
            + configuration.subcommands.flatMap { entries(of: $0, prefix: name + " ") }
    }

    static func markdown() -> String {
        let all = entries()
        var page = """
            # whalesim commands

            Every command's help, as `whalesim help COMMAND` (or `whalesim COMMAND --help`) prints \
            it. Generated: `whalesim docs commands > docs/commands.md` writes this page, and a \
            test fails when it differs from the help, so edit the commands' help text \
            (`abstract`, `discussion` and the options' `help`), not this file. Every example in \
            it runs as written from the repository's root (a test runs or parses each one); from \
            a checkout, type `scripts/whalesim` where it says `whalesim` (it builds the release \
            binary once and runs it).

            | Command | What it does |
            | --- | --- |

            """
        for entry in all {
            let abstract = entry.type.configuration.abstract.replacingOccurrences(of: "|", with: "\\|")
            page += "| [`\(entry.name)`](#\(anchor(entry.name))) | \(abstract) |\n"
        }
        for entry in all {
            page += "\n## \(entry.name)\n\n"
            if !entry.type.configuration.abstract.isEmpty { page += entry.type.configuration.abstract + "\n\n" }
            page += "```text\n\(help(entry.type))\n```\n"
        }
        return page
    }

    /// The command's `--help` at ``columns``, without trailing spaces or blank lines.
    static func help(_ type: ParsableCommand.Type) -> String {
        let text = Whalesim.helpMessage(for: type, includeHidden: false, columns: columns)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            String(line.reversed().drop { $0 == " " }.reversed())
        }
        return lines.joined(separator: "\n").trimmingCharacters(in: .newlines)
    }

    /// GitHub's heading anchor: lower case, spaces to hyphens, other punctuation dropped.
    static func anchor(_ heading: String) -> String {
        String(
            heading.lowercased().compactMap { character -> Character? in
                if character == " " { return "-" }
                return character.isLetter || character.isNumber || character == "-" || character == "_"
                    ? character : nil
            })
    }
}
