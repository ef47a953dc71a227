import Foundation

/// `reproducer.json`, which `whalesim reproduce` (and a failing `whalesim run`) writes beside the
/// record: the failing note turned into a scripted simulator scenario, whether it fails the same
/// way in simulation, and its shrunk script (docs/run-record.md).
public struct ReproducerFile: Codable, Sendable, Hashable {
    public struct Shrunk: Codable, Sendable, Hashable {
        /// The shrunk scenario's file name, in the run directory.
        public var file: String
        public var replay: String
        public var clients: Int
        public var steps: Int
        public var edits: Int
        public var runs: Int
        /// The shrunk script, one step a line (`t=12 c00 edit at 0 delete 0 insert "x"`).
        public var script: [String]
        public var evidence: [String]
    }

    /// Which catalog fault the run's foreign server (or client) behaves like, when the script
    /// did not fail against whalesim's correct code (`whalesim reproduce` against a --server run).
    public struct Diagnosis: Codable, Sendable, Hashable {
        public struct Match: Codable, Sendable, Hashable {
            public var faults: [String]
            public var summaries: [String]
            public var checkersAgreeing: Int
            public var checkersCompared: Int
            public var claimsMatched: Int
            public var applies: Int
        }
        public struct RuledOut: Codable, Sendable, Hashable {
            public var faults: [String]
            public var why: String
        }
        public struct NotTried: Codable, Sendable, Hashable {
            public var fault: String
            public var reason: String
        }
        /// `your server behaves like F (what F does)`, or `reproduces with none of the catalog's faults (...)`.
        public var sentence: String
        /// `server` or `client`: whose code the defect sits in.
        public var side: String
        /// The named fault set (the best match), empty when none reproduces.
        public var faults: [String]
        public var matches: [Match]
        public var indistinguishable: [[String]]
        public var ruledOut: [RuledOut]
        public var notTried: [NotTried]
        /// Faults only a live server shows (no simulation can try them; conform checks them).
        public var liveServerOnly: [String]?
        /// Every fault set run, in order.
        public var tried: [[String]]
        /// Why it stopped before trying every candidate (budget, nothing exercisable).
        public var stopped: String?
        public var liveApplies: Int
        public var seconds: Double
        /// `whalesim conform --only ...` commands that isolate the named faults.
        public var conform: [String]
    }

    public var schemaVersion: Int
    public var note: String
    public var checker: String
    /// `reproduced`, `other evidence` or `not reproduced`.
    public var status: String
    public var serverOrder: String
    public var notes: [String]
    public var liveEvidence: [String]
    public var liveReplay: String
    /// The full reproducer's file name, in the run directory.
    public var reproducer: String
    public var replay: String
    public var simulatedEvidence: [String]
    public var shrunk: Shrunk?
    public var diagnosis: Diagnosis?

    public static let fileName = "reproducer.json"
}
