/// Label pairs in the order they are given (exposition keeps it, so output is stable without
/// sorting a dictionary). Names follow `[a-zA-Z_][a-zA-Z0-9_]*`; values are any text and are
/// escaped by the encoders.
///
/// ```swift
/// let labels: TelemetryLabels = ["checker": "convergence"]
/// ```
public struct TelemetryLabels: Sendable, Hashable, Codable, ExpressibleByDictionaryLiteral {
    public private(set) var pairs: [Pair]

    /// One label.
    public struct Pair: Sendable, Hashable, Codable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(_ pairs: [(String, String)] = []) {
        self.pairs = pairs.map { Pair(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    public var isEmpty: Bool { pairs.isEmpty }

    /// The value of a label, or nil.
    public subscript(name: String) -> String? { pairs.first { $0.name == name }?.value }

    /// These labels followed by `other`'s (a name already here keeps its value).
    public func merging(_ other: TelemetryLabels) -> TelemetryLabels {
        var merged = self
        for pair in other.pairs where self[pair.name] == nil { merged.pairs.append(pair) }
        return merged
    }

    /// Whether `name` is a valid Prometheus label name (and not reserved with `__`).
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !name.hasPrefix("__") else { return false }
        func letter(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) || c == "_" }
        return letter(first) && name.unicodeScalars.allSatisfy { letter($0) || ("0"..."9").contains($0) }
    }
}

/// The labels every series of a run carries, so the shards of one load and the runs of a
/// `--repeat` stay apart in Prometheus and `sum by (le)` joins them again.
public struct RunLabels: Sendable, Hashable, Codable {
    public var scenario: String
    public var seed: String
    public var runID: String
    /// `i/N` for `run --shard i/N`, `0/1` for a whole run.
    public var shard: String

    public init(scenario: String, seed: String, runID: String, shard: String = "0/1") {
        self.scenario = scenario
        self.seed = seed
        self.runID = runID
        self.shard = shard
    }

    /// As label pairs, in the documented order: scenario, seed, run_id, shard.
    public var labels: TelemetryLabels {
        TelemetryLabels([("scenario", scenario), ("seed", seed), ("run_id", runID), ("shard", shard)])
    }
}
