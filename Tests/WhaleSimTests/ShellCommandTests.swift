import Foundation
import Testing
import WhaleSim

/// The replay commands whalesim prints are pasted into a shell: a word the shell would split or
/// read (a space, a quote, `$`, `*`, an empty word) must come back as the one word it was.
struct ShellCommandTests {
    @Test func plainWordsStayAsTheyAre() {
        #expect(
            ShellCommand.line([
                "whalesim", "run", "Scenarios/live-demo.yml", "--seed", "1", "--server", "http://127.0.0.1:8080",
                "--shard", "2/4",
            ])
                == "whalesim run Scenarios/live-demo.yml --seed 1 --server http://127.0.0.1:8080 --shard 2/4")
    }

    @Test func wordsTheShellWouldReadAreQuoted() {
        #expect(ShellCommand.word("my scenario.yml") == "'my scenario.yml'")
        #expect(ShellCommand.word("it's") == "'it'\\''s'")
        #expect(ShellCommand.word("") == "''")
        #expect(ShellCommand.word("$HOME") == "'$HOME'")
        #expect(ShellCommand.word("notes*") == "'notes*'")
        #expect(ShellCommand.word("é") == "'é'")
    }

    /// What `sh` makes of the printed line is the words it was made from, whatever they hold.
    @Test func theShellReadsBackTheSameWords() throws {
        let words = [
            "whalesim", "simulate", "/tmp/sp ace/it's/my scen.yml", "--seed", "7", "", "a\"b", "back\\slash",
            "$(touch x)", "`id`", "tab\there", "new\nline", "*", "~user", "#not-a-comment", "é ü",
        ]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "for w in " + ShellCommand.line(words) + "; do printf '%s\\0' \"$w\"; done"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        var read = String(decoding: data, as: UTF8.self).components(separatedBy: "\0")
        #expect(read.removeLast() == "")
        #expect(read == words)
    }
}
