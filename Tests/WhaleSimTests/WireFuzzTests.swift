import Testing
import WhaleSim

/// `WireCodec`, `CollabServer` and `ClientSession` under random and mutated frames and event
/// sequences: no trap, decoded frames round-trip, refused input changes no document or session.
/// Replay a failing case with `whalesim fuzz wire --seed <seed> --from <case> --count 1`.
@Suite struct WireFuzzTests {
    static let seed: UInt64 = 20_261_122
    static let count = 40_000

    @Test func framesAndEventSequencesNeverCorruptState() {
        let report = WireFuzz.run(seed: Self.seed, range: 0..<Self.count)
        for finding in report.findings.prefix(20) {
            Issue.record(
                "\(finding)\n  replay: whalesim fuzz wire --seed \(Self.seed) --from \(finding.index) --count 1")
        }
        #expect(report.cases == Self.count)
        #expect(
            report.framesDecoded > 1000 && report.framesRefused > 1000,
            "\(report.framesDecoded) decoded, \(report.framesRefused) refused")
        #expect(report.refusals > 1000, "refused inputs seen: \(report.refusals)")
        print(
            "wire fuzz: \(report.cases) cases, \(report.framesDecoded) frames decoded, \(report.framesRefused) refused, \(report.serverEvents) server and \(report.clientEvents) client events, \(report.refusals) refusals"
        )
    }
}
