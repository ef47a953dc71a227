import Foundation
import SalesforceFake
import Testing
import WhaleLoad
import SalesforceHTTP
import WhalesimTesting

/// What a burst of requests leaves in the curl executor once it is over: after a server restart a
/// thousand model pages refetch at once, and the handles and keep-alive connections of that
/// burst stayed for the rest of the run, some 9 MB of the soak's runner (issue 21).
@Suite(.serialized) struct CurlPoolTests {
    @Test func aBurstsHandlesAndConnectionsGoOnceItIsOver() async throws {
        let server = try await FakeSalesforceServer.start(org: try HTTPExecutorTests.loadSmallOrg())
        let http = CurlMultiExecutor(
            options: .init(idleHandlesMin: 2, idleStretch: .milliseconds(200), connectionMaxIdleSeconds: 1))
        let url = "\(server.httpURL)/services/data/"
        #expect(try await http.execute(HTTPRequestSpec(url: url), timeout: .seconds(10)).status == 200)
        try await HTTPExecutorTests.waitForDescriptors(atMost: Int.max)
        let before = HTTPExecutorTests.openDescriptors()

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<60 {
                group.addTask { try await http.execute(HTTPRequestSpec(url: url), timeout: .seconds(30)).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.count == 60 && statuses.allSatisfy { $0 == 200 })
        let burst = HTTPExecutorTests.openDescriptors()
        #expect(burst > before + 20, "the burst should have opened many connections: \(before) → \(burst)")

        // The pool first keeps what the burst had in flight, then falls to its minimum.
        var largest = 0
        let deadline = ContinuousClock.now + .seconds(4)
        while ContinuousClock.now < deadline {
            largest = max(largest, http.idleHandleCount)
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(largest >= 10, "the pool never held the burst's handles (largest \(largest))")
        #expect(http.idleHandleCount <= 2)

        // Idle past a second, the burst's connections are closed as later requests look for one
        // (curl prunes its cache at most once a second, so a few requests may take a few seconds).
        // A few descriptors may be others' (in a full test run, 4 more than before stayed open
        // whatever curl did): at most a tenth of what the burst opened may be left. Without the
        // connections' idle limit, curl kept all of them for 118 s.
        let allowed = before + max(2, (burst - before) / 10)
        var open = HTTPExecutorTests.openDescriptors()
        let settle = ContinuousClock.now + .seconds(10)
        while open > allowed, ContinuousClock.now < settle {
            #expect(try await http.execute(HTTPRequestSpec(url: url), timeout: .seconds(10)).status == 200)
            try await Task.sleep(for: .milliseconds(500))
            open = HTTPExecutorTests.openDescriptors()
        }
        #expect(open <= allowed, "\(before) before the burst, \(burst) during it, \(open) 10 s after")

        await http.shutdown()
        await server.stop()
    }

    /// With an idle bound, the burst's connections beyond it close as their transfers end, long
    /// before their idle age: a restart's thousand page refetches left a thousand keep-alive
    /// connections for 30 s, the plateau of the soak runner's memory after each restart.
    @Test func aBurstsConnectionsBeyondTheIdleBoundCloseAsTheirTransfersEnd() async throws {
        let server = try await FakeSalesforceServer.start(org: try HTTPExecutorTests.loadSmallOrg())
        // An idle age longer than the test: only the bound can close them here.
        let http = CurlMultiExecutor(options: .init(idleConnectionsMax: 4, connectionMaxIdleSeconds: 120))
        let url = "\(server.httpURL)/services/data/"
        #expect(try await http.execute(HTTPRequestSpec(url: url), timeout: .seconds(10)).status == 200)
        try await HTTPExecutorTests.waitForDescriptors(atMost: Int.max)
        let before = HTTPExecutorTests.openDescriptors()

        // Descriptors sampled while the burst is in flight: it does open many connections.
        let sampling = Task {
            var most = 0
            while !Task.isCancelled {
                most = max(most, HTTPExecutorTests.openDescriptors())
                try? await Task.sleep(for: .milliseconds(5))
            }
            return most
        }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<60 {
                group.addTask { try await http.execute(HTTPRequestSpec(url: url), timeout: .seconds(30)).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        sampling.cancel()
        let most = await sampling.value
        #expect(statuses.count == 60 && statuses.allSatisfy { $0 == 200 })
        #expect(most > before + 10, "the burst should have had many connections open at once: \(before) → \(most)")

        // Within a second of the burst, at most the bound (and a descriptor or two of others').
        try await HTTPExecutorTests.waitForDescriptors(atMost: before + 4 + 2)
        let after = HTTPExecutorTests.openDescriptors()
        #expect(
            after <= before + 4 + 2,
            "\(before) before the burst, \(most) during it, \(after) after it, with at most 4 idle")
        // And the connections kept still serve.
        #expect(try await http.execute(HTTPRequestSpec(url: url), timeout: .seconds(10)).status == 200)

        await http.shutdown()
        await server.stop()
    }

    /// With a cap on idle handles (the load runner's: as many as its idle connections), a burst's
    /// handles beyond it are freed as their transfers end, not kept until the pool's next trim: in
    /// the soak, a restart's thousand handles idled 3 to 6 s and held its memory peak for as long.
    /// Without the cap, the 60 handles of this burst stay idle.
    @Test func aBurstsHandlesBeyondTheIdleCapAreFreedAsTheirTransfersEnd() async throws {
        let server = try await FakeSalesforceServer.start(org: try HTTPExecutorTests.loadSmallOrg())
        // A trim stretch longer than the test: only the cap can free them here.
        let http = CurlMultiExecutor(options: .init(idleHandlesMax: 4, idleHandlesMin: 2, idleStretch: .seconds(120)))
        let url = "\(server.httpURL)/services/data/"
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<60 {
                group.addTask { try await http.execute(HTTPRequestSpec(url: url), timeout: .seconds(30)).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.count == 60 && statuses.allSatisfy { $0 == 200 })
        #expect(http.takePeakInFlight() > 4, "the burst should have had more than the cap in flight at once")
        #expect(http.idleHandleCount >= 1, "the pool keeps handles up to its cap")
        #expect(http.idleHandleCount <= 4, "\(http.idleHandleCount) idle handles kept, the cap is 4")
        // And a request after the burst still gets a handle.
        #expect(try await http.execute(HTTPRequestSpec(url: url), timeout: .seconds(10)).status == 200)
        await http.shutdown()
        await server.stop()
    }

    /// An answer many times the receive buffer arrives whole, over HTTP and HTTPS.
    @Test(arguments: [false, true])
    func anAnswerLargerThanTheReceiveBufferArrivesWhole(secure: Bool) async throws {
        let server = try await FakeSalesforceServer.start(org: try HTTPExecutorTests.loadSmallOrg())
        let http = CurlMultiExecutor(options: .init(caFile: server.caFile.path, receiveBufferBytes: 1024))
        let base = secure ? server.httpsURL : server.httpURL
        let token = try await HTTPExecutorTests.login(http, base: base)
        // The describe of every object, each answer several times the 1 KB buffer.
        var total = 0
        for object in ["Account", "Contact", "Opportunity"] {
            let result = try await http.execute(
                HTTPRequestSpec(
                    url: "\(base)/services/data/v59.0/sobjects/\(object)/describe",
                    headers: [("Authorization", "Bearer \(token)")]), timeout: .seconds(30))
            #expect(result.status == 200, "\(object)")
            #expect(result.body.count > 4 * 1024, "\(object): \(result.body.count) bytes")
            let json = try JSONValue.parse(result.text)
            #expect(json["name"] == .string(object))
            #expect((json["fields"]?.arrayValue?.count ?? 0) > 5, "\(object)")
            total += result.body.count
        }
        #expect(total > 16 * 1024, "\(total) bytes in all")
        await http.shutdown()
        await server.stop()
    }
}
