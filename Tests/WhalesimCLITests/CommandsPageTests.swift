import Foundation
import Testing

/// docs/commands.md against the built `.build/debug/whalesim`: the file is what `whalesim docs
/// commands` prints (every command's `--help`), `whalesim help COMMAND` prints that help, every
/// command's help shows an example, and every example is a valid command line; the quick ones run.
@Suite(.serialized) struct CommandsPageTests {
    let cli = RunCommandTests()
    static let regenerate = "swift build && .build/debug/whalesim docs commands > docs/commands.md"
    var binary: String { RunCommandTests.root.appendingPathComponent(".build/debug/whalesim").path }

    func page() throws -> String {
        let run = try cli.whalesim(["docs", "commands"])
        #expect(run.status == 0, "\(run.all)")
        return run.stdout
    }

    func examples() throws -> [HelpExample] {
        try HelpExample.sections(ofPage: page()).flatMap {
            HelpExample.examples(inHelp: $0.help, section: $0.command)
        }
    }

    @Test func theCommittedPageIsTheCommandsHelp() throws {
        let generated = try page()
        let path = RunCommandTests.root.appendingPathComponent("docs/commands.md")
        let file = try String(contentsOf: path, encoding: .utf8)
        #expect(generated == file, "docs/commands.md is stale: \(Self.regenerate)")
    }

    /// `whalesim help COMMAND` (ArgumentParser's own) prints the command's `--help`, which at 80
    /// columns is the page's section, nested commands included.
    @Test func helpCommandPrintsTheSection() throws {
        let sections = HelpExample.sections(ofPage: try page())
        #expect(sections.map(\.command).contains("whalesim bench run"))
        for name in ["simulate", "run", "bench run", "ot apply", "report"] {
            let words = name.split(separator: " ").map(String.init)
            let help = try cli.whalesim(["help"] + words, environment: ["COLUMNS": "80"])
            let dashed = try cli.whalesim(words + ["--help"], environment: ["COLUMNS": "80"])
            #expect(help.status == 0 && dashed.status == 0, "\(name): \(help.all) \(dashed.all)")
            #expect(help.stdout == dashed.stdout, "help \(name)")
            let section = sections.first { $0.command == "whalesim \(name)" }?.help
            let printed = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
                .map { String($0.reversed().drop { $0 == " " }.reversed()) }
                .joined(separator: "\n").trimmingCharacters(in: .newlines)
            #expect(printed == section, "help \(name): not its section of the page")
        }
    }

    @Test func everyCommandShowsAnExample() throws {
        let sections = HelpExample.sections(ofPage: try page())
        #expect(sections.count >= 20, "\(sections.map(\.command))")
        for section in sections {
            #expect(
                !HelpExample.examples(inHelp: section.help, section: section.command).isEmpty,
                "\(section.command): its help has no Examples: block")
        }
    }

    /// Every example, as printed, split as a shell splits it and parsed by whalesim's own parser
    /// without running (`whalesim docs parse`, one process for all): a command, option or value
    /// that does not exist fails here, also in the examples that are too slow to run.
    @Test func everyExampleParses() throws {
        let all = try examples()
        var lines = ""
        for example in all {
            let invocation = try example.invocation()
            let json = try JSONSerialization.data(withJSONObject: invocation.arguments)
            lines += String(decoding: json, as: UTF8.self) + "\n"
        }
        let parsed = try run(["docs", "parse"], input: lines, in: RunCommandTests.root)
        let results = parsed.stdout.split(separator: "\n").map(String.init)
        #expect(results.count == all.count, "\(parsed.all)")
        for (example, result) in zip(all, results) {
            #expect(result.hasPrefix("ok "), "\(example): \(result)")
        }
        #expect(parsed.status == 0, "\(parsed.all)")
    }

    /// Which examples run here: what takes seconds and needs only this repository. The rest are
    /// parsed only (above): `run`, `merge` and `reproduce` (a live load of tens of seconds, its
    /// shards, a run with a violation), `serve`, `fake-salesforce` and `lazyfs` (they serve until
    /// stopped; lazyfs needs FUSE), `bench` (minutes, meaningful only in a release build), `conform`
    /// but its listings (it starts servers and runs every case), `fuzz` without --count (it runs
    /// for --seconds). One live run does run: the small one `check`'s help shows to make the
    /// record it judges.
    static func runsHere(_ example: HelpExample, _ arguments: [String]) -> Bool {
        guard let command = arguments.first else { return true }
        if arguments.contains("--help") { return true }
        switch command {
        case "ot", "simulate", "history", "check", "report", "help": return true
        case "run": return example.section == "whalesim check"
        case "conform": return arguments.contains("--list") || arguments.contains("--list-markdown")
        case "fuzz": return arguments.contains("--count")
        default: return false
        }
    }

    /// The quick examples, in the page's order, in a directory like a fresh clone (the repository's
    /// files linked, an empty Reports/), each exiting 0 and printing the output its help shows. The
    /// live run is judged by `check` after it, so a latency threshold it breaches on a busy machine
    /// (exit 1, or 3 when whalesim saw the machine busy) does not fail it here.
    @Test func theQuickExamplesRunAsWritten() throws {
        let dir = try cli.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = RunCommandTests.root
        for name in try FileManager.default.contentsOfDirectory(atPath: root.path)
        where !name.hasPrefix(".") && name != "Reports" {
            try FileManager.default.createSymbolicLink(
                at: dir.appendingPathComponent(name),
                withDestinationURL: root.appendingPathComponent(name))
        }
        var ran = 0
        for example in try examples() {
            let invocation = try example.invocation()
            guard Self.runsHere(example, invocation.arguments) else { continue }
            let result = try run(invocation.arguments, input: invocation.input, in: dir)
            ran += 1
            let passing: Set<Int32> = invocation.arguments.first == "run" ? [0, 1, 3] : [0]
            #expect(passing.contains(result.status), "\(example): exit \(result.status): \(result.all)")
            let printed = result.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            for line in example.output {
                #expect(printed.contains(line), "\(example): does not print \(line); it printed \(result.stdout)")
            }
        }
        #expect(ran >= 15, "only \(ran) examples ran")
    }

    @Test func theSplitterSplitsAsAShellDoes() throws {
        let words = try ShellWords.split(#"echo '{"a": [1]}' | whalesim ot  "x \"y\"" a\ b"#)
        #expect(
            words == [
                .word("echo"), .word(#"{"a": [1]}"#), .pipe, .word("whalesim"), .word("ot"),
                .word(#"x "y""#), .word("a b"),
            ])
        #expect(throws: ShellWords.Unsupported.self) { try ShellWords.split("whalesim history $HOME") }
        #expect(throws: ShellWords.Unsupported.self) { try ShellWords.split("whalesim history > out") }
        let help = """
            Examples:
              # a comment
              echo '{"doc":"ab"}' \\
                | whalesim ot apply
              {"doc":"ab"}
              whalesim simulate

            USAGE: whalesim
            """
        let examples = HelpExample.examples(inHelp: help, section: "whalesim ot")
        #expect(examples.map(\.text) == [#"echo '{"doc":"ab"}' | whalesim ot apply"#, "whalesim simulate"])
        #expect(examples.first?.output == [#"{"doc":"ab"}"#])
        let expected = HelpExample.Invocation(arguments: ["ot", "apply"], input: #"{"doc":"ab"}"# + "\n")
        #expect(try examples.first?.invocation() == expected)
    }

    /// Runs the built whalesim in `directory` with `input` on its standard input (none: /dev/null).
    func run(_ arguments: [String], input: String? = nil, in directory: URL) throws -> RunCommandTests.Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = Pipe(), err = Pipe(), stdin = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin
        try process.run()
        // Written before reading: every input here is far smaller than a pipe's buffer.
        stdin.fileHandleForWriting.write(Data((input ?? "").utf8))
        try stdin.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return .init(
            status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
            stderr: String(decoding: e, as: UTF8.self))
    }
}
