import WhaleOT
import WhaleProtocol

/// Fuzzes the protocol without sockets: `WireCodec` with valid frames of every message type,
/// mutated; `CollabServer` and `ClientSession` with random and mutated event sequences. Checks
/// that nothing traps, that a decoded frame re-encodes to the same message, and that refused
/// input changes no state: a server event without an `applied` action leaves every existing
/// document's text, history and op ids as they were; a client event answered only by `failed`
/// leaves the session's text, revision and pending ops as they were. Case `i` of a seed depends
/// only on `(seed, i)`.
///
/// ```swift
/// let report = WireFuzz.run(seed: 1, range: 0..<10_000)
/// report.findings   // empty, or each names its case and what broke
/// ```
public enum WireFuzz {
    /// One case that broke the contract.
    public struct Finding: Sendable, CustomStringConvertible {
        public var index: Int
        public var problem: String
        public var description: String { "case \(index): \(problem)" }
    }

    public struct Report: Sendable {
        public var cases = 0
        public var framesDecoded = 0
        public var framesRefused = 0
        public var serverEvents = 0
        public var clientEvents = 0
        public var refusals = 0
        public var findings: [Finding] = []
    }

    /// Cases `range` of `seed`: a quarter mutated client frames, a quarter mutated server
    /// frames, a quarter server sessions, a quarter client sessions (20 events each).
    public static func run(seed: UInt64, range: Range<Int>, before: ((Int) -> Void)? = nil) -> Report {
        var report = Report()
        for index in range {
            before?(index)
            var rng = SimRandom(seed: seed).derive(UInt64(truncatingIfNeeded: index))
            report.cases += 1
            var fuzz = WireFuzzCase(index: index, rng: rng)
            switch index % 4 {
            case 0: fuzz.clientFrame(&report)
            case 1: fuzz.serverFrame(&report)
            case 2: fuzz.serverSession(&report)
            default: fuzz.clientSession(&report)
            }
            rng = fuzz.rng
        }
        return report
    }
}
