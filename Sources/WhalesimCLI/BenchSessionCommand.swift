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

    @Option(help: "The line parser to time: json-c, foundation, or both (alternating, with their ratio).")
    var decoder = "both"

    func run() throws {
        guard (1...100).contains(runs) else { throw BadInput("--runs \(runs): must be 1...100").exit() }
        let decoders: [SessionLineDecoder]
        if decoder == "both" {
            decoders = SessionLineDecoder.allCases
        } else if let one = SessionLineDecoder(rawValue: decoder) {
            decoders = [one]
        } else {
            throw BadInput("--decoder \(decoder): one of json-c, foundation, both").exit()
        }
        var seconds: [SessionLineDecoder: [Double]] = [:]
        var recording: SessionRecording?
        for _ in 0..<runs {
            for d in decoders {
                let start = ContinuousClock.now
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw BadInput("cannot read \(file)").exit()
                }
                let r: SessionRecording
                do { r = try SessionRecording.decode(data, path: file, using: d) } catch {
                    throw BadInput("\(error)").exit()
                }
                let scripts = r.bySession.map { ReplayScript.make(session: $0.session, events: $0.events) }
                let elapsed = ContinuousClock.now - start
                seconds[d, default: []].append(
                    Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                precondition(scripts.count == r.sessions.count)
                if let earlier = recording { precondition(earlier == r, "the two parsers read different recordings") }
                recording = r
            }
        }
        let r = recording!
        // The middle of the sorted times (the upper one of two), as the other benchmarks report.
        func middle(_ d: SessionLineDecoder) -> Double { seconds[d]!.sorted()[seconds[d]!.count / 2] }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        let messages = r.events.filter { $0.kind == .wsSend || $0.kind == .wsReceive }.count
        let span = Double((r.events.last?.t ?? 0) - (r.events.first?.t ?? 0)) / 1000
        print(
            "bench session \(file): \(r.events.count) events (\(messages) websocket messages) in \(r.sessions.count) sessions over \(String(format: "%.1f", span)) s recorded, \(bytes) bytes"
        )
        for d in decoders {
            print(
                String(
                    format: "  load (%@): median %.3f s of %d runs (min %.3f, max %.3f); %.0f events/s", d.rawValue,
                    middle(d), runs, seconds[d]!.min()!, seconds[d]!.max()!, Double(r.events.count) / middle(d)))
        }
        if decoders.count == 2 {
            print(
                String(
                    format: "  json-c is %.1fx as fast as Foundation's JSONDecoder here",
                    middle(.foundation) / middle(.jsonC)))
        }
        print(
            String(
                format: "  size: %.0f bytes per event, %.0f per websocket message",
                Double(bytes) / Double(max(1, r.events.count)), Double(bytes) / Double(max(1, messages))))
    }
}
