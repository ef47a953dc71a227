import Testing
import WhaleReports

/// The `simulate --seeds` progress bar and plain line (SeedProgress is pure: figures in, text out).
@Suite struct SeedProgressTests {
    @Test func theBarShowsDoneFailuresRateAndTimeLeft() {
        let p = SeedProgress(done: 412, total: 1000, failures: 2, elapsedSeconds: 10.7)
        #expect(p.bar() == "[########············]  412/1000 · 2 failed · 38.5 seeds/s · 16 s left")
        #expect(p.line == "  [412/1000] 2 failed, 38.5 seeds/s, 16 s left")
        #expect(p.bar(width: 10) == "[####······]  412/1000 · 2 failed · 38.5 seeds/s · 16 s left")
    }

    @Test func startAndEndAndLongRuns() {
        #expect(
            SeedProgress(done: 0, total: 200, failures: 0, elapsedSeconds: 0).bar(width: 4)
                == "[····]   0/200 · 0 failed · – seeds/s · time left unknown")
        #expect(
            SeedProgress(done: 200, total: 200, failures: 1, elapsedSeconds: 65).bar(width: 4)
                == "[####] 200/200 · 1 failed · 3.1 seeds/s · done in 1 min 05 s")
        let slow = SeedProgress(done: 10, total: 100_000, failures: 0, elapsedSeconds: 20)
        #expect(slow.remainingSeconds == 199_980)
        #expect(slow.line == "  [10/100000] 0 failed, 0.5 seeds/s, 55 h 33 min left")
        #expect(
            SeedProgress(done: 5_000, total: 6_000, failures: 0, elapsedSeconds: 10).line
                == "  [5000/6000] 0 failed, 500 seeds/s, 2 s left")
    }

    @Test func durations() {
        #expect(SeedProgress.duration(0) == "0 s")
        #expect(SeedProgress.duration(58.2) == "59 s")
        #expect(SeedProgress.duration(60) == "1 min 00 s")
        #expect(SeedProgress.duration(3_599) == "59 min 59 s")
        #expect(SeedProgress.duration(7_620) == "2 h 07 min")
    }
}
