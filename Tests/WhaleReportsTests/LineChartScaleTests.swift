import Testing
@testable import WhaleReports

/// The report's latency charts in decades (issue 46): a power-loss run's op→ack spans 0–5,000 ms
/// while its p99 is 34 ms; on a linear axis p50–p99 lie flat on the floor, on a log axis they read.
@Suite struct LineChartScaleTests {
    @Test func aLogScaleSpansWholeDecadesAndLiftsThePercentiles() {
        let values = [0.8, 3.0, 34.0, 5_000.0]
        let log = LineChart.Scale.of(values, log: true)
        #expect(log.log && log.low == 0.1 && log.high == 10_000)
        #expect(log.ticks == [0.1, 1, 10, 100, 1_000, 10_000])
        // 34 ms sits 2.53 decades up of 5: half way, where a linear axis puts it at 0.3%.
        #expect(abs(log.fraction(34) - 0.506) < 0.001)
        let linear = LineChart.Scale.of(values, log: false)
        #expect(!linear.log && linear.high == 5_000 && linear.fraction(34) < 0.01)
        // A value of 0 (no delay) sits on the floor, not below it.
        #expect(log.fraction(0) == 0)
    }

    @Test func oneDecadeOrNothingStillDraws() {
        let same = LineChart.Scale.of([10, 10], log: true)
        #expect(same.low == 10 && same.high == 100 && same.ticks == [10, 100])
        let empty = LineChart.Scale.of([], log: true)
        #expect(!empty.log && empty.high == 1, "no positive value: the linear axis from 0 to 1")
    }
}
