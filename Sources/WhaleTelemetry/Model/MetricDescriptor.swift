/// What kind of figure a metric family holds, in the Prometheus sense.
public enum MetricKind: String, Sendable, Codable, CaseIterable {
    /// Only goes up (resets only when the process restarts); exposed with `_total`.
    case counter
    /// Goes up and down: the value now.
    case gauge
    /// Observations counted into cumulative `le` buckets, with `_sum` and `_count`.
    case histogram
}

/// Who exports a metric family: the load runner (`run`, `simulate --seeds`, `conform` with
/// `--listen`) or the reference server (`serve`'s `/metrics`).
public enum MetricExporter: String, Sendable, Codable {
    case runner
    case server
}

/// One metric family: its name, kind, base unit, label names and one line that says what it
/// counts. The catalog (``MetricCatalog``) holds every family whalesim exposes.
///
/// ```swift
/// let acks = MetricDescriptor(name: "whalesim_acks", kind: .counter, help: "Ops acknowledged.")
/// acks.exposedName   // "whalesim_acks_total"
/// ```
public struct MetricDescriptor: Sendable, Hashable, Codable {
    /// The family name without `_total` (OpenMetrics names a counter family so); for a metric with
    /// a unit it ends in `_<unit>` (Prometheus naming: base units, `_seconds`, `_bytes`).
    public let name: String
    public let kind: MetricKind
    /// The base unit (`seconds`, `bytes`), or empty for a count or a ratio.
    public let unit: String
    public let help: String
    /// Labels beyond the run's own (scenario, seed, run id, shard), e.g. `code` or `checker`.
    public let labelNames: [String]
    public let exporter: MetricExporter

    public init(
        name: String, kind: MetricKind, unit: String = "", help: String, labelNames: [String] = [],
        exporter: MetricExporter = .runner
    ) {
        self.name = name
        self.kind = kind
        self.unit = unit
        self.help = help
        self.labelNames = labelNames
        self.exporter = exporter
    }

    /// The name a scraper sees: a counter's with `_total` (the Prometheus text format names the
    /// family so in `# TYPE`; OpenMetrics names its samples so).
    public var exposedName: String { kind == .counter ? name + "_total" : name }

    /// Why this name breaks the Prometheus conventions, or nil when it keeps them: lower snake
    /// case, a `whalesim_` prefix, a unit as the last word when it has one, no `_total` in the
    /// family name (the encoders add it).
    public var namingProblem: String? {
        guard name.hasPrefix("whalesim_") else { return "no whalesim_ prefix" }
        guard name.allSatisfy({ $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0) }) else {
            return "not lower snake case"
        }
        if name.hasSuffix("_total") { return "the family name carries _total (the encoders add it)" }
        if !unit.isEmpty, !name.hasSuffix("_" + unit) { return "the unit \(unit) is not the last word" }
        for unit in ["_milliseconds", "_ms", "_microseconds", "_kilobytes", "_megabytes"] where name.contains(unit) {
            return "not a base unit (\(unit))"
        }
        if kind == .histogram, unit.isEmpty { return "a histogram without a unit" }
        return nil
    }
}
