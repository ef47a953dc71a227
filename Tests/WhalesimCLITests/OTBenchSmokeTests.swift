import Foundation
import Testing

/// The benches run in release builds for their figures; here, on the debug binary, they only
/// have to run and agree with themselves: every codec gives the same reply, every document
/// representation replays the trace to its `endContent` (exit 2 otherwise). Timing targets are
/// not checked here (a debug build misses them: exit 1 is allowed).
@Suite("whalesim bench ot|json smoke (debug binary)")
struct OTBenchSmokeTests {
    @Test func benchJSONCodecsAgree() throws {
        let run = try WhalesimRun.run(["bench", "json", "--runs", "1", "--iterations", "50"], stdin: Data())
        #expect(run.status == 0, "\(run.stderr)")
        for codec in [
            "Foundation JSONSerialization", "JSONDecoder/JSONEncoder (Codable)", "json-c",
            "WhaleProtocol.WireCodec (WireJSON)",
        ] {
            #expect(run.stdout.contains(codec))
        }
        #expect(run.stdout.contains(#"reply:   {"senderId":"srv-1","messageId":"c1:17","type":"docChangeReturnOps""#))
    }

    @Test func benchOTReplaysCorrectly() throws {
        let run = try WhalesimRun.run(["bench", "ot", "--runs", "1"], stdin: Data())
        #expect(run.status == 0 || run.status == 1, "\(run.stderr)")
        #expect(!run.stderr.contains("wrong text"))
        #expect(run.stdout.contains("replay automerge-paper (259778 edits, final 104852 scalars)"))
        #expect(run.stdout.contains("ChunkedRope (candidate)"))
    }

    /// A small `bench run` with the bare and the floor clients (the floor both bare and doing the
    /// virtual client's session work): each kind joins every client,
    /// types through the same server (a frame sent and ten received per op in notes of ten), and
    /// the comparison lines are printed. Figures are not judged on a debug build.
    @Test func benchRunMeasuresTheBareAndTheFloorClients() throws {
        let run = try WhalesimRun.run(
            [
                "bench", "run", "--latency-clients", "20", "--note-size", "10", "--seconds", "2", "--runs", "1",
                "--memory-clients", "0", "--socket-memory", "0", "--ceiling-clients", "0", "--protocol", "2", "--floor",
            ],
            stdin: Data())
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("verdict valid"), "\(run.stdout)")
        for kind in ["bare LeanSocket clients", "floor (epoll) clients", "floor clients with the session"] {
            let line = run.stdout.split(separator: "\n").first { $0.contains(kind + ", run 1: 20 of 20 joined") }
            #expect(line != nil, "\(kind): \(run.stdout)")
            // "(11.0 frames per op)": one sent, one ack and nine broadcasts.
            let perOp = line.flatMap { $0.split(separator: "(").last?.split(separator: " ").first }.flatMap {
                Double($0)
            }
            #expect(perOp.map { (10.5...11.5).contains($0) } == true, "\(kind): \(line ?? "")")
        }
        #expect(
            run.stdout.contains("the full virtual client handles") && run.stdout.contains("of the floor"),
            "\(run.stdout)")
        #expect(run.stdout.contains("floor with the virtual client's session (median of 1)"), "\(run.stdout)")
    }

    /// `bench run`'s bad input is refused before anything starts: a lag bound under 1 ms or not a
    /// number, a note of one client, no runs, a floor with no protocol 2 latency phase to stand
    /// beside, a timer grid past 100 ms or not a number; each exits 64 and says what it needs.
    @Test(arguments: [
        ["--lag-bound", "0"], ["--lag-bound", "abc"], ["--note-size", "1"], ["--runs", "0"],
        ["--floor", "--latency-clients", "0"], ["--floor", "--protocol", "1"], ["--timer-grid", "101"],
        ["--timer-grid", "abc"],
    ])
    func benchRunRefusesBadInput(_ arguments: [String]) throws {
        let run = try WhalesimRun.run(["bench", "run"] + arguments, stdin: Data())
        #expect(run.status == 64, "\(run.stdout) \(run.stderr)")
        #expect(run.stderr.contains(arguments[0]) || run.stderr.contains("need --latency-clients"), "\(run.stderr)")
        #expect(!run.stdout.contains("runner cost"))
    }
}
