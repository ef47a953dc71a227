import Foundation

/// The examples of the commands' help, read from the help text as printed (docs/commands.md's
/// fenced blocks, which are `whalesim COMMAND --help`), and split as a shell would split them.
///
/// An `Examples:` (or `Example:`) line opens a block that runs to the next blank line. In it, a line
/// that starts with `whalesim`, `echo '…' | whalesim` or `swift run … whalesim` is a command (a
/// trailing backslash continues it on the next line), a line starting with `#` is a comment, and any
/// other line is what the command before it prints on stdout. Example lines must fit the help's 80
/// columns: a line the help wrapped is reported as an example that cannot run.
struct HelpExample: CustomStringConvertible {
    /// The full name of the command whose help shows the example (`whalesim history`).
    var section: String
    /// The command line as printed, continuation lines joined.
    var text: String
    /// The lines shown after it as its output.
    var output: [String] = []

    var description: String { "\(section): \(text)" }

    /// What the example runs: whalesim's arguments and, for `echo X | whalesim …`, its standard input.
    struct Invocation: Equatable {
        var arguments: [String]
        var input: String?
    }

    /// The example's whalesim arguments, split as a POSIX shell splits them; throws on a shape the
    /// tests cannot run as written (another pipe, a redirection, a variable, a glob).
    func invocation() throws -> Invocation {
        var segments: [[String]] = [[]]
        for word in try ShellWords.split(text) {
            if case .word(let w) = word { segments[segments.count - 1].append(w) } else { segments.append([]) }
        }
        var input: String?
        if segments.count == 2, segments[0].first == "echo", segments[0].count >= 2 {
            input = segments[0].dropFirst().joined(separator: " ") + "\n"  // as echo joins its words
            segments.removeFirst()
        }
        guard segments.count == 1, let words = segments.first else {
            throw ShellWords.Unsupported(reason: "only `echo X | whalesim …` may pipe", line: text)
        }
        if words.first == "whalesim" { return Invocation(arguments: Array(words.dropFirst()), input: input) }
        if words.starts(with: ["swift", "run"]), let at = words.firstIndex(of: "whalesim") {
            return Invocation(arguments: Array(words[(at + 1)...]), input: input)
        }
        throw ShellWords.Unsupported(reason: "not a whalesim command", line: text)
    }

    /// The `## whalesim …` sections of docs/commands.md with their fenced help text.
    static func sections(ofPage page: String) -> [(command: String, help: String)] {
        var sections: [(command: String, help: String)] = []
        var current: String?
        var block: [Substring]?
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if block != nil {
                if line == "```" {
                    if let current { sections.append((current, block!.joined(separator: "\n"))) }
                    block = nil
                } else {
                    block!.append(line)
                }
            } else if line.hasPrefix("## ") {
                current = String(line.dropFirst(3))
            } else if line == "```text" {
                block = []
            }
        }
        return sections
    }

    /// The examples in one command's help text.
    static func examples(inHelp help: String, section: String) -> [HelpExample] {
        var examples: [HelpExample] = []
        var inBlock = false
        var indent: Int?
        var pending: String?
        /// A command line, or its part before a trailing backslash (kept in `pending`).
        func command(_ line: String) {
            if line.hasSuffix("\\") {
                pending = String(line.dropLast()).trimmingCharacters(in: .whitespaces)
            } else {
                pending = nil
                examples.append(HelpExample(section: section, text: line))
            }
        }
        for raw in help.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if !inBlock {
                inBlock = line == "Examples:" || line == "Example:"
                indent = nil
                continue
            }
            if line.isEmpty { inBlock = false; continue }
            // A line indented less than the block's first is the tail of one the help wrapped.
            let depth = raw.prefix { $0 == " " }.count
            if depth < (indent ?? depth) {
                let text = "(wrapped by the help: keep examples short) " + line
                examples.append(HelpExample(section: section, text: text))
                continue
            }
            indent = indent ?? depth
            if let head = pending {
                command(head + " " + line)
            } else if line.hasPrefix("#") {
                continue
            } else if line == "whalesim" || ["whalesim ", "echo ", "swift run "].contains(where: line.hasPrefix) {
                command(line)
            } else if !examples.isEmpty {
                examples[examples.count - 1].output.append(line)
            } else {
                examples.append(HelpExample(section: section, text: line))  // prose in the block: fails to split
            }
        }
        return examples
    }
}

/// A small POSIX-shell word splitter: blanks separate words, single quotes keep everything,
/// double quotes keep all but `\"`, `\\`, `\$` and `` \` ``, a backslash outside quotes keeps the
/// next character, and an unquoted `|` is a pipe. Anything that would make the shell do more than
/// split (`$`, `*`, `?`, `;`, `&`, `<`, `>`, `` ` ``, `(`, `)`) outside quotes is refused.
enum ShellWords {
    enum Word: Equatable {
        case word(String)
        case pipe
    }

    struct Unsupported: Error, CustomStringConvertible {
        var reason: String
        var line: String
        var description: String { "\(reason): \(line)" }
    }

    static func split(_ line: String) throws -> [Word] {
        var words: [Word] = []
        var current = ""
        var inWord = false
        var characters = Array(line)[...]
        func finish() {
            if inWord { words.append(.word(current)) }
            current = ""
            inWord = false
        }
        while let c = characters.popFirst() {
            switch c {
            case " ", "\t":
                finish()
            case "|":
                finish()
                words.append(.pipe)
            case "'":
                inWord = true
                guard let end = characters.firstIndex(of: "'") else {
                    throw Unsupported(reason: "unclosed '", line: line)
                }
                current += String(characters[..<end])
                characters = characters[(end + 1)...]
            case "\"":
                inWord = true
                var closed = false
                while let d = characters.popFirst() {
                    if d == "\"" { closed = true; break }
                    if d == "\\", let next = characters.first, "\"\\$`".contains(next) {
                        current.append(characters.removeFirst())
                    } else if d == "$" || d == "`" {
                        throw Unsupported(reason: "expansion in double quotes", line: line)
                    } else {
                        current.append(d)
                    }
                }
                if !closed { throw Unsupported(reason: "unclosed \"", line: line) }
            case "\\":
                inWord = true
                guard let next = characters.popFirst() else {
                    throw Unsupported(reason: "trailing backslash", line: line)
                }
                current.append(next)
            case "$", "*", "?", ";", "&", "<", ">", "`", "(", ")":
                throw Unsupported(reason: "shell syntax \(c) the tests cannot run as written", line: line)
            default:
                inWord = true
                current.append(c)
            }
        }
        finish()
        return words
    }
}
