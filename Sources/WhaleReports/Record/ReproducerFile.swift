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

    public static let fileName = "reproducer.json"
}
