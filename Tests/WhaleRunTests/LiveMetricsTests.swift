import Testing
@testable import WhaleRun

/// What `errors.rate` counts: the server's failures, not the ones a fault window causes on purpose.
@Suite struct LiveMetricsTests {
    @Test func aFailedConnectIsAnErrorOutsideAnOutageAndOnlyChartedDuringOne() {
        let metrics = LiveMetrics(clock: RunClock())
        metrics.attempt()
        metrics.connectFailed()
        #expect(metrics.attempts == 1)
        #expect(metrics.errorCount == 1)

        metrics.outage(true)
        for _ in 0..<5 {
            metrics.attempt()
            metrics.connectFailed()
        }
        metrics.outage(false)
        // Charted (the errors series has all six), rated once: redials into a server the run
        // itself has stopped are neither attempts nor errors.
        #expect(metrics.attempts == 1)
        #expect(metrics.errorCount == 1)
        #expect(metrics.errorSeriesTotal("connect") == 6)

        metrics.attempt()
        metrics.connectFailed()
        #expect(metrics.attempts == 2)
        #expect(metrics.errorCount == 2)
    }

    @Test func aDroppedSocketOnPurposeIsChartedButNotRated() {
        let metrics = LiveMetrics(clock: RunClock())
        metrics.error("disconnect", rated: false)
        #expect(metrics.errorCount == 0)
        #expect(metrics.errorSeriesTotal("disconnect") == 1)
    }
}
