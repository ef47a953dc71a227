import Testing

@testable import WhaleTelemetry

/// The exposition encoders against golden text: the Prometheus text format 0.0.4 and OpenMetrics
/// 1.0, label-value and help escaping, histograms' cumulative buckets with `_sum` and `_count`.
@Suite struct ExpositionTests {
    static let acks = MetricDescriptor(name: "whalesim_acks", kind: .counter, help: "Acks.")
    static let errors = MetricDescriptor(name: "whalesim_errors", kind: .counter, help: "Errors.", labelNames: ["code"])
    static let lag = MetricDescriptor(name: "whalesim_lag_seconds", kind: .gauge, unit: "seconds", help: "Lag.")
    static let ack = MetricDescriptor(name: "whalesim_ack_seconds", kind: .histogram, unit: "seconds", help: "Op→ack.")

    static var snapshot: TelemetrySnapshot {
        var snapshot = TelemetrySnapshot(run: RunLabels(scenario: "soak", seed: "7", runID: "r1", shard: "1/2"))
        snapshot.set(acks, 3)
        snapshot.set(errors, labels: ["code": "4003"], 2)
        snapshot.set(lag, 0.5)
        var histogram = TelemetryHistogram(bounds: [0.25, 1, 2.5])
        for value in [0.125, 0.25, 0.5, 4] { histogram.record(value) }
        histogram.add(0.125, count: 0)
        snapshot.set(ack, histogram: histogram, quantiles: ["0.99": 4])
        return snapshot
    }

    static let run = #"scenario="soak",seed="7",run_id="r1",shard="1/2""#

    @Test func prometheusTextFormat() {
        let expected = """
            # HELP whalesim_acks_total Acks.
            # TYPE whalesim_acks_total counter
            whalesim_acks_total{\(Self.run)} 3
            # HELP whalesim_errors_total Errors.
            # TYPE whalesim_errors_total counter
            whalesim_errors_total{\(Self.run),code="4003"} 2
            # HELP whalesim_lag_seconds Lag.
            # TYPE whalesim_lag_seconds gauge
            whalesim_lag_seconds{\(Self.run)} 0.5
            # HELP whalesim_ack_seconds Op→ack.
            # TYPE whalesim_ack_seconds histogram
            whalesim_ack_seconds_bucket{\(Self.run),le="0.25"} 2
            whalesim_ack_seconds_bucket{\(Self.run),le="1.0"} 3
            whalesim_ack_seconds_bucket{\(Self.run),le="2.5"} 3
            whalesim_ack_seconds_bucket{\(Self.run),le="+Inf"} 4
            whalesim_ack_seconds_sum{\(Self.run)} 4.875
            whalesim_ack_seconds_count{\(Self.run)} 4

            """
        #expect(ExpositionEncoder.encode(Self.snapshot, as: .prometheusText) == expected)
    }

    @Test func openMetricsFormat() {
        let expected = """
            # TYPE whalesim_acks counter
            # HELP whalesim_acks Acks.
            whalesim_acks_total{\(Self.run)} 3
            # TYPE whalesim_errors counter
            # HELP whalesim_errors Errors.
            whalesim_errors_total{\(Self.run),code="4003"} 2
            # TYPE whalesim_lag_seconds gauge
            # UNIT whalesim_lag_seconds seconds
            # HELP whalesim_lag_seconds Lag.
            whalesim_lag_seconds{\(Self.run)} 0.5
            # TYPE whalesim_ack_seconds histogram
            # UNIT whalesim_ack_seconds seconds
            # HELP whalesim_ack_seconds Op→ack.
            whalesim_ack_seconds_bucket{\(Self.run),le="0.25"} 2
            whalesim_ack_seconds_bucket{\(Self.run),le="1.0"} 3
            whalesim_ack_seconds_bucket{\(Self.run),le="2.5"} 3
            whalesim_ack_seconds_bucket{\(Self.run),le="+Inf"} 4
            whalesim_ack_seconds_sum{\(Self.run)} 4.875
            whalesim_ack_seconds_count{\(Self.run)} 4
            # EOF

            """
        #expect(ExpositionEncoder.encode(Self.snapshot, as: .openMetrics) == expected)
    }

    @Test func labelValuesAndHelpAreEscaped() {
        let odd = MetricDescriptor(name: "whalesim_odd", kind: .gauge, help: #"Says "hi" \ then"# + "\nmore.")
        var snapshot = TelemetrySnapshot()
        snapshot.set(odd, labels: ["note": #"a"b\c"# + "\nd"], 1)
        #expect(
            ExpositionEncoder.encode(snapshot, as: .prometheusText) == #"""
                # HELP whalesim_odd Says "hi" \\ then\nmore.
                # TYPE whalesim_odd gauge
                whalesim_odd{note="a\"b\\c\nd"} 1

                """#)
        #expect(
            ExpositionEncoder.encode(snapshot, as: .openMetrics) == #"""
                # TYPE whalesim_odd gauge
                # HELP whalesim_odd Says \"hi\" \\ then\nmore.
                whalesim_odd{note="a\"b\\c\nd"} 1
                # EOF

                """#)
    }

    @Test func valuesAndBoundsAreFormattedAsPrometheusReadsThem() {
        #expect(ExpositionEncoder.format(12_345) == "12345")
        #expect(ExpositionEncoder.format(0.0125) == "0.0125")
        #expect(ExpositionEncoder.format(.infinity) == "+Inf")
        #expect(ExpositionEncoder.format(-.infinity) == "-Inf")
        #expect(ExpositionEncoder.format(.nan) == "NaN")
        #expect(
            TelemetryHistogram.latencyBounds.map(ExpositionEncoder.formatBound) == [
                "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1.0", "2.5",
                "5.0",
                "10.0", "30.0", "60.0",
            ])
    }

    @Test func histogramBucketsAreCumulativeAndBoundsInclusive() {
        var histogram = TelemetryHistogram()
        histogram.record(0.0005)  // on a bound: that bucket (le is ≤)
        histogram.record(0.0006)
        histogram.add(0.05, count: 10)
        histogram.record(120)  // above every bound: +Inf only
        let cumulative = histogram.cumulativeCounts
        #expect(cumulative.count == TelemetryHistogram.latencyBounds.count + 1)
        #expect(cumulative[0] == 1)
        #expect(cumulative[1] == 2)
        #expect(cumulative[6] == 12)  // le=0.05
        #expect(cumulative[15] == 12)  // le=60
        #expect(cumulative.last == 13)
        #expect(histogram.count == 13)
        var other = TelemetryHistogram()
        other.record(0.0005)
        histogram.merge(other)
        #expect(histogram.cumulativeCounts.first == 2)
        #expect(zip(cumulative, cumulative.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func acceptHeaderChoosesTheFormat() {
        let prometheus =
            "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
            + "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
        #expect(ExpositionFormat.negotiate(accept: prometheus) == .openMetrics)
        #expect(ExpositionFormat.negotiate(accept: "application/openmetrics-text") == .openMetrics)
        #expect(ExpositionFormat.negotiate(accept: nil) == .prometheusText)
        #expect(ExpositionFormat.negotiate(accept: "*/*") == .prometheusText)
        #expect(ExpositionFormat.negotiate(accept: "text/plain;version=0.0.4") == .prometheusText)
        #expect(ExpositionFormat.negotiate(accept: "text/plain, application/openmetrics-text;q=0.5") == .prometheusText)
        #expect(ExpositionFormat.negotiate(accept: "application/openmetrics-text; version=0.0.1") == .prometheusText)
        #expect(ExpositionFormat.negotiate(accept: "application/openmetrics-text;q=0") == .prometheusText)
        #expect(ExpositionFormat.openMetrics.contentType.hasPrefix("application/openmetrics-text; version=1.0.0"))
        #expect(ExpositionFormat.prometheusText.contentType.hasPrefix("text/plain; version=0.0.4"))
    }

    @Test func theCatalogKeepsThePrometheusNamingConventions() {
        for descriptor in MetricCatalog.all {
            #expect(descriptor.namingProblem == nil, "\(descriptor.name): \(descriptor.namingProblem ?? "")")
            #expect(descriptor.labelNames.allSatisfy(TelemetryLabels.isValidName))
        }
        for exporter in [MetricExporter.runner, .server] {
            let names = MetricCatalog.all.filter { $0.exporter == exporter }.map(\.exposedName)
            #expect(Set(names).count == names.count, "a name twice among the \(exporter)'s")
        }
        #expect(
            MetricCatalog.runner.filter { $0.kind == .histogram }.map(\.name) == [
                "whalesim_op_ack_seconds", "whalesim_op_remote_apply_seconds", "whalesim_converge_seconds",
                "whalesim_connect_seconds", "whalesim_login_seconds", "whalesim_graphql_seconds",
                "whalesim_soql_seconds",
            ])
        #expect(MetricDescriptor(name: "whalesim_ack_ms", kind: .histogram, unit: "ms", help: "").namingProblem != nil)
        #expect(MetricDescriptor(name: "whalesim_acks_total", kind: .counter, help: "").namingProblem != nil)
    }

    @Test func aSnapshotReplacesASeriesWithTheSameLabels() {
        var snapshot = TelemetrySnapshot()
        snapshot.set(MetricCatalog.errors, labels: ["code": "4003"], 1)
        snapshot.set(MetricCatalog.errors, labels: ["code": "4001"], 1)
        snapshot.set(MetricCatalog.errors, labels: ["code": "4003"], 5)
        #expect(snapshot.families.count == 1)
        #expect(snapshot.families[0].series.count == 2)
        #expect(snapshot.series(MetricCatalog.errors, labels: ["code": "4003"])?.value == 5)
        snapshot.declare(MetricCatalog.acks)
        #expect(
            ExpositionEncoder.encode(snapshot, as: .prometheusText).contains("# TYPE whalesim_acks_total counter\n"))
    }
}
