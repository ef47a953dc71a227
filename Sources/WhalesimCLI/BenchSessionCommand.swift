import ArgumentParser
import Foundation
import WhaleSession

/// `whalesim bench session FILE`: how long a session file takes to load (read, check, and cut
/// into every session's replay steps, as `run --replay` does before its load), and its size per
/// recorded message.
struct BenchSessionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Time loading a session file as a replay does, and its bytes per recorded message.",
        discussion: """
            Reads FILE --runs times (the strict reader, then ReplayScript for every session) and prints \
            the median, the bytes, events and websocket messages, and bytes per message.

            Examples:
              swift run -c release whalesim bench session team.session --runs 5
            """
    )

    @Argument(help: "A session file (whalesim record or import-har).")
    var file: String

    @Option(help: "How many times to load it (the median is printed).")
    var runs = 5

    func run() throws {
        guard (1...100).contains(runs) else { throw BadInput("--runs \(runs): must be 1...100").exit() }
        var seconds: [Double] = []
        var recording: SessionRecording?
        for _ in 0..<runs {
            let start = ContinuousClock.now
            let r: SessionRecording
            do { r = try SessionRecording.read(path: file) } catch { throw BadInput("\(error)").exit() }
            let scripts = r.sessions.map { ReplayScript.make(r, session: $0) }
            let d = ContinuousClock.now - start
            seconds.append(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
            precondition(scripts.count == r.sessions.count)
            recording = r
        }
        let r = recording!
        // The middle of the sorted times (the upper one of two), as the other benchmarks report.
        let middle = seconds.sorted()[seconds.count / 2]
        let bytes = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        let messages = r.events.filter { $0.kind == .wsSend || $0.kind == .wsReceive }.count
        let span = Double((r.events.last?.t ?? 0) - (r.events.first?.t ?? 0)) / 1000
        print(
            "bench session \(file): \(r.events.count) events (\(messages) websocket messages) in \(r.sessions.count) sessions over \(String(format: "%.1f", span)) s recorded, \(bytes) bytes"
        )
        print(
            String(
                format: "  load: median %.3f s of %d runs (min %.3f, max %.3f); %.0f events/s", middle, runs,
                seconds.min()!, seconds.max()!, Double(r.events.count) / middle))
        print(
            String(
                format: "  size: %.0f bytes per event, %.0f per websocket message",
                Double(bytes) / Double(max(1, r.events.count)), Double(bytes) / Double(max(1, messages))))
    }
}
