import Foundation
import Testing
import WhaleRun
import WhaleSim

/// A live run's replay command, pasted into `sh`, gives back the words the run was made with,
/// a `--restart-command` with spaces and quotes among them (it was once quoted twice).
struct LiveReplayCommandTests {
    @Test func aRestartCommandIsQuotedOnce() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let restart = "ssh staging 'sudo systemctl restart whaler'"
        var options = LiveRunOptions(
            scenario: try BuiltinScenarios.load("live-demo"), scenarioRef: "live-demo", seed: 3,
            fixtures: root.appendingPathComponent("Fixtures"), reportsRoot: "Reports")
        options.overrides = ["--server", "http://staging:8080", "--restart-command", restart]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "for w in " + options.replayCommand + "; do printf '%s\\0' \"$w\"; done"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let words = String(decoding: data, as: UTF8.self).split(separator: "\0").map(String.init)
        #expect(
            words == [
                "whalesim", "run", "live-demo", "--seed", "3", "--server", "http://staging:8080", "--restart-command",
                restart,
            ])
    }
}
