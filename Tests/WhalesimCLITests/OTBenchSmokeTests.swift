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
        for codec in ["Foundation JSONSerialization", "JSONDecoder/JSONEncoder (Codable)", "json-c", "WhaleProtocol.WireCodec (WireJSON)"] {
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

    /// `bench run`'s bad input is refused before anything starts: a lag bound under 1 ms or not a
    /// number, a note of one client, no runs; each exits 64 and says what it needs.
    @Test(arguments: [["--lag-bound", "0"], ["--lag-bound", "abc"], ["--note-size", "1"], ["--runs", "0"]])
    func benchRunRefusesBadInput(_ arguments: [String]) throws {
        let run = try WhalesimRun.run(["bench", "run"] + arguments, stdin: Data())
        #expect(run.status == 64, "\(run.stdout) \(run.stderr)")
        #expect(run.stderr.contains(arguments[0]) || run.stderr.contains("need --latency-clients"), "\(run.stderr)")
        #expect(!run.stdout.contains("runner cost"))
    }
}
