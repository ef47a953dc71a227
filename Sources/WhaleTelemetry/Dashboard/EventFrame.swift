import Foundation

/// The JSON object `/events` sends each second (and the dashboard reads): the run's labels, its
/// status, and every series by its exposed name, histograms with cumulative counts per `le` as
/// `/metrics` has them, so the page and Prometheus see one set of figures.
///
/// ```json
/// {"run":{"scenario":"soak",...},"status":{"phase":"running","elapsed_seconds":12,...},
///  "metrics":{"whalesim_acks_total":[{"labels":{},"value":1200}],
///             "whalesim_op_ack_seconds":[{"labels":{},"le":[0.0005,...],"cumulative":[3,...],
///                                         "sum":1.9,"count":1200,"quantiles":{"0.99":0.034}}]}}
/// ```
struct EventFrame: Encodable {
    var run: [String: String]?
    var status: RunStatus
    var metrics: [String: [Sample]]

    struct Sample: Encodable {
        var labels: [String: String]
        var value: Double?
        var le: [Double]?
        var cumulative: [UInt64]?
        var sum: Double?
        var count: UInt64?
        var quantiles: [String: Double]?
    }

    init(_ snapshot: TelemetrySnapshot) {
        run = snapshot.run.map { run in
            Dictionary(uniqueKeysWithValues: run.labels.pairs.map { ($0.name, $0.value) })
        }
        status = snapshot.status
        metrics = [:]
        for family in snapshot.families {
            metrics[family.descriptor.exposedName] = family.series.map { series in
                let labels = Dictionary(series.labels.pairs.map { ($0.name, $0.value) }) { first, _ in first }
                guard let histogram = series.histogram else { return Sample(labels: labels, value: series.value) }
                return Sample(
                    labels: labels, le: histogram.bounds, cumulative: histogram.cumulativeCounts,
                    sum: histogram.sum, count: histogram.count, quantiles: series.quantiles)
            }
        }
    }

    /// The frame as one line of JSON (keys sorted, so equal snapshots give equal frames).
    static func json(_ snapshot: TelemetrySnapshot) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+Inf", negativeInfinity: "-Inf",
            nan: "NaN")
        guard let data = try? encoder.encode(EventFrame(snapshot)) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The frame as a server-sent event: the final one named `final`, the others plain messages.
    static func sse(_ snapshot: TelemetrySnapshot, final: Bool) -> String {
        (final ? "event: final\n" : "") + "data: " + json(snapshot) + "\n\n"
    }
}
