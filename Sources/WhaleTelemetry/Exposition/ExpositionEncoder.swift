/// Encodes a ``TelemetrySnapshot`` in the Prometheus text format 0.0.4 or OpenMetrics 1.0.
///
/// ```swift
/// let body = ExpositionEncoder.encode(snapshot, as: .negotiate(accept: request.accept))
/// ```
///
/// Families come in the snapshot's order, series in the order they were set, the run's labels
/// first on every sample. Histograms get cumulative `_bucket{le}` samples up to `+Inf`, `_sum`
/// and `_count`.
public enum ExpositionEncoder {
    public static func encode(_ snapshot: TelemetrySnapshot, as format: ExpositionFormat) -> String {
        var out = ""
        out.reserveCapacity(4096)
        let runLabels = snapshot.run?.labels ?? [:]
        for family in snapshot.families {
            writeHeader(family.descriptor, format, into: &out)
            for series in family.series {
                let labels = runLabels.merging(series.labels)
                writeSeries(family.descriptor, series, labels, into: &out)
            }
        }
        if format == .openMetrics { out += "# EOF\n" }
        return out
    }

    private static func writeHeader(_ descriptor: MetricDescriptor, _ format: ExpositionFormat, into out: inout String)
    {
        switch format {
        case .prometheusText:
            let name = descriptor.exposedName
            out += "# HELP \(name) \(escapeHelp(descriptor.help, quotes: false))\n"
            out += "# TYPE \(name) \(descriptor.kind.rawValue)\n"
        case .openMetrics:
            let name = descriptor.name
            out += "# TYPE \(name) \(descriptor.kind.rawValue)\n"
            if !descriptor.unit.isEmpty { out += "# UNIT \(name) \(descriptor.unit)\n" }
            out += "# HELP \(name) \(escapeHelp(descriptor.help, quotes: true))\n"
        }
    }

    private static func writeSeries(
        _ descriptor: MetricDescriptor, _ series: TelemetrySnapshot.Series,
        _ labels: TelemetryLabels, into out: inout String
    ) {
        guard descriptor.kind == .histogram else {
            out += "\(descriptor.exposedName)\(render(labels)) \(format(series.value))\n"
            return
        }
        guard let histogram = series.histogram else { return }
        let cumulative = histogram.cumulativeCounts
        for (index, bound) in histogram.bounds.enumerated() {
            let le = labels.merging(TelemetryLabels([("le", formatBound(bound))]))
            out += "\(descriptor.name)_bucket\(render(le)) \(cumulative[index])\n"
        }
        out +=
            "\(descriptor.name)_bucket\(render(labels.merging(TelemetryLabels([("le", "+Inf")])))) \(histogram.count)\n"
        out += "\(descriptor.name)_sum\(render(labels)) \(format(histogram.sum))\n"
        out += "\(descriptor.name)_count\(render(labels)) \(histogram.count)\n"
    }

    /// `{a="x",b="y"}`, or nothing for no labels.
    static func render(_ labels: TelemetryLabels) -> String {
        guard !labels.isEmpty else { return "" }
        return "{" + labels.pairs.map { "\($0.name)=\"\(escapeLabelValue($0.value))\"" }.joined(separator: ",") + "}"
    }

    /// A label value with `\`, `"` and line feeds escaped (both formats).
    public static func escapeLabelValue(_ value: String) -> String {
        var out = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// Help text with `\` and line feeds escaped, and `"` too in OpenMetrics.
    static func escapeHelp(_ help: String, quotes: Bool) -> String {
        var out = ""
        for character in help.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\"" where quotes: out += "\\\""
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// A sample value: whole numbers without a fraction (counts read as counts), `+Inf`, `-Inf`, `NaN`.
    public static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A bucket bound as `le` shows it: a float's canonical form (`1.0`, `0.0005`, `2.5`), the same
    /// in both formats so a bucket is one series whichever format was scraped.
    public static func formatBound(_ bound: Double) -> String {
        if bound.isInfinite { return bound > 0 ? "+Inf" : "-Inf" }
        return "\(bound)"
    }
}
