import Testing
@testable import WhaleReports

@Suite struct SeriesDerivationTests {
    func line(_ t: Int, _ type: String, _ fields: [String: HistoryLine.FieldValue] = [:]) -> HistoryLine {
        HistoryLine(t: t, type: type, fields: fields)
    }

    /// Two clients on one document; c01's op is acked at +10 and reaches c02 at +14; a partition
    /// and a server crash make two fault windows; c02 drops out for a while.
    var history: [HistoryLine] {
        [
            line(0, "connect", ["client": .string("c01")]),
            line(0, "connect", ["client": .string("c02")]),
            line(5, "invoke", ["client": .string("c01"), "opId": .string("c01:1")]),
            line(
                9, "serverApply",
                ["client": .string("c01"), "document": .string("doc1"), "opId": .string("c01:1"), "revision": .int(1)]),
            line(15, "ack", ["client": .string("c01"), "opId": .string("c01:1"), "revision": .int(1)]),
            line(15, "clientRevision", ["client": .string("c01"), "revision": .int(1)]),
            line(19, "clientRevision", ["client": .string("c02"), "revision": .int(1)]),
            line(20, "note", ["text": .string("partition cuts off c02")]),
            line(30, "disconnect", ["client": .string("c02"), "cause": .string("nemesis")]),
            line(40, "note", ["text": .string("partition of c02 heals")]),
            line(50, "serverCrash"),
            line(55, "error", ["client": .string("c01"), "code": .string("badRevision"), "message": .string("x")]),
            line(70, "connect", ["client": .string("c02")]),
            line(80, "heal"),
            line(99, "quiescence", ["reached": .bool(true), "ticksAfterHeal": .int(19)]),
        ]
    }

    @Test func derivesCountsLatenciesConnectionsErrorsAndFaults() {
        let s = SeriesDerivation.derive(history, documents: [.init(name: "doc1", clients: ["c01", "c02"])])
        #expect(s.unit == "ticks")
        #expect(s.bucketWidth == 2)  // 100 ticks over about 60 buckets
        #expect(s.bucketStarts.count == 50)
        #expect(s.counters["ops_invoked"]?.reduce(0, +) == 1)
        #expect(s.counters["ops_acked"]?[7] == 1)
        #expect(s.latency["op_ack"]?.overall == LatencyFigures(count: 1, p50: 10, p90: 10, p99: 10, max: 10))
        #expect(s.latency["op_ack"]?.p99[7] == 10)
        #expect(s.latency["op_ack"]?.p99[6] == nil)
        #expect(s.latency["op_remote_apply"]?.overall.max == 14)
        #expect(s.connected[0] == 2 && s.connected[15] == 1 && s.connected[35] == 2)
        #expect(s.errors == ["error:badRevision": (0..<50).map { $0 == 27 ? 1 : 0 }])
        #expect(
            s.faultWindows == [
                FaultWindow(kind: "partition", label: "partition c02", start: 20, end: 40),
                FaultWindow(kind: "disconnect", label: "disconnect c02", start: 30, end: 70),
                FaultWindow(kind: "server-restart", label: "server down", start: 50, end: 80),
            ])
    }

    @Test func percentilesAreNearestRank() {
        let f = LatencyFigures(samples: (1...100).map(Double.init).reversed())
        #expect(f == LatencyFigures(count: 100, p50: 50, p90: 90, p99: 99, max: 100))
        #expect(LatencyFigures(samples: []) == LatencyFigures(count: 0, p50: nil, p90: nil, p99: nil, max: nil))
        #expect(
            SeriesDerivation.niceWidth(1) == 1 && SeriesDerivation.niceWidth(6_001) == 200
                && SeriesDerivation.niceWidth(30_000) == 500)
    }

    /// A catalog fault's window (the simulator's "fault F on" / "fault F off" notes) is shaded
    /// like a nemesis's, with the fault's name as its kind; one still open closes at the heal.
    @Test func catalogFaultWindowsComeFromTheirNotes() {
        let s = SeriesDerivation.derive(
            [
                line(0, "connect", ["client": .string("c01")]),
                line(10, "note", ["text": .string("fault server-applies-resend-twice on")]),
                line(25, "note", ["text": .string("c01 backpressure on")]),
                line(30, "note", ["text": .string("fault server-applies-resend-twice off")]),
                line(40, "note", ["text": .string("fault client-tie-priority on")]),
                line(50, "note", ["text": .string("fault server-applies-resend-twice on")]),
                line(60, "heal"),
                line(60, "note", ["text": .string("fault client-tie-priority off")]),
                line(90, "quiescence", ["reached": .bool(true), "ticksAfterHeal": .int(30)]),
            ], documents: [.init(name: "doc1", clients: ["c01"])])
        #expect(
            s.faultWindows == [
                FaultWindow(
                    kind: "server-applies-resend-twice", label: "fault server-applies-resend-twice", start: 10, end: 30),
                FaultWindow(kind: "client-tie-priority", label: "fault client-tie-priority", start: 40, end: 60),
                FaultWindow(
                    kind: "server-applies-resend-twice", label: "fault server-applies-resend-twice", start: 50, end: 60),
            ])
    }
}
