/// The run's figures at one moment: every metric family with its series, the run's labels, and
/// the run's state for the dashboard. `/metrics` encodes it (``ExpositionEncoder``) and
/// `/events` sends it as one JSON object a second.
///
/// ```swift
/// var snapshot = TelemetrySnapshot(run: RunLabels(scenario: "soak", seed: "7", runID: "r1"))
/// snapshot.set(MetricCatalog.acks, 1_200)
/// snapshot.set(MetricCatalog.errors, labels: ["code": "4003"], 2)
/// snapshot.set(MetricCatalog.opAck, histogram: ackHistogram)
/// ```
public struct TelemetrySnapshot: Sendable, Codable, Equatable {
    /// The labels every series carries (nil outside a run, e.g. `simulate` before it picks a scenario).
    public var run: RunLabels?
    /// Families in the order they were first set (the catalog's order when set from it).
    public private(set) var families: [Family]
    public var status: RunStatus

    /// One metric family and its series.
    public struct Family: Sendable, Codable, Equatable {
        public var descriptor: MetricDescriptor
        public var series: [Series]
    }

    /// One series: its own labels (beyond the run's) and its value.
    public struct Series: Sendable, Codable, Equatable {
        public var labels: TelemetryLabels
        public var value: Double
        /// Set for a histogram family (then `value` is unused).
        public var histogram: TelemetryHistogram?
        /// Exact quantiles from the run's own record for the last second (e.g. "0.99" → seconds),
        /// which the dashboard prefers to estimates from buckets. Not exposed to Prometheus.
        public var quantiles: [String: Double]?
    }

    public init(run: RunLabels? = nil, status: RunStatus = RunStatus()) {
        self.run = run
        self.families = []
        self.status = status
    }

    /// Sets a counter or gauge series.
    public mutating func set(_ descriptor: MetricDescriptor, labels: TelemetryLabels = [:], _ value: Double) {
        precondition(descriptor.kind != .histogram, "\(descriptor.name) is a histogram")
        put(descriptor, Series(labels: labels, value: value))
    }

    /// Sets a counter or gauge series from an integer count.
    public mutating func set<I: BinaryInteger>(
        _ descriptor: MetricDescriptor, labels: TelemetryLabels = [:], _ value: I
    ) {
        set(descriptor, labels: labels, Double(value))
    }

    /// Sets a histogram series, with the last second's exact quantiles when the run has them.
    public mutating func set(
        _ descriptor: MetricDescriptor, labels: TelemetryLabels = [:], histogram: TelemetryHistogram,
        quantiles: [String: Double]? = nil
    ) {
        precondition(descriptor.kind == .histogram, "\(descriptor.name) is not a histogram")
        put(descriptor, Series(labels: labels, value: 0, histogram: histogram, quantiles: quantiles))
    }

    /// Declares a family with no series yet (it shows in `# HELP`/`# TYPE` only).
    public mutating func declare(_ descriptor: MetricDescriptor) {
        if !families.contains(where: { $0.descriptor.name == descriptor.name }) {
            families.append(Family(descriptor: descriptor, series: []))
        }
    }

    /// The series of a family with these labels, or nil.
    public func series(_ descriptor: MetricDescriptor, labels: TelemetryLabels = [:]) -> Series? {
        families.first { $0.descriptor.name == descriptor.name }?.series.first { $0.labels == labels }
    }

    private mutating func put(_ descriptor: MetricDescriptor, _ series: Series) {
        precondition(series.labels.pairs.allSatisfy { TelemetryLabels.isValidName($0.name) }, "bad label name")
        guard let index = families.firstIndex(where: { $0.descriptor.name == descriptor.name }) else {
            families.append(Family(descriptor: descriptor, series: [series]))
            return
        }
        if let at = families[index].series.firstIndex(where: { $0.labels == series.labels }) {
            families[index].series[at] = series
        } else {
            families[index].series.append(series)
        }
    }
}
