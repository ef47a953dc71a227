import Foundation
@testable import SalesforceFake
import Testing
import WhalesimTesting

/// Injected faults and latency: seeded per client token, replayable, applied per endpoint.
@Suite struct APIFaultTests {
    func config(_ endpoint: SFEndpoint, _ faults: FaultRates, latency: LatencyDistribution = .none, seed: UInt64 = 5)
        -> FakeSalesforceConfig
    {
        FakeSalesforceConfig(seed: seed, endpoints: [endpoint: EndpointBehaviour(latency: latency, faults: faults)])
    }

    @Test func everyFaultKindAnswersLikeSalesforce() throws {
        let cases: [(FaultRates, Int, String)] = [
            (FaultRates(requestLimit: 1), 403, "REQUEST_LIMIT_EXCEEDED"),
            (FaultRates(serverError: 1), 500, "UNKNOWN_EXCEPTION"),
            (FaultRates(unavailable: 1), 503, "SERVER_UNAVAILABLE"),
            (FaultRates(expiredSession: 1), 401, "INVALID_SESSION_ID"),
        ]
        for (faults, status, code) in cases {
            let (fake, token) = try APITestOrg.fakeWithSession(config: config(.limits, faults))
            let response = fake.handle(APITestOrg.get("/services/data/v59.0/limits", token: token))
            #expect(response.status == status)
            #expect(response.errorCode == code)
            // Other endpoints are untouched.
            if code != "INVALID_SESSION_ID" {
                #expect(fake.handle(APITestOrg.get("/services/data/v59.0/sobjects", token: token)).status == 200)
            }
        }
    }

    @Test func expiredSessionFaultReallyEndsTheSession() throws {
        let (fake, token) = try APITestOrg.fakeWithSession(config: config(.limits, FaultRates(expiredSession: 1)))
        #expect(fake.handle(APITestOrg.get("/services/data/v59.0/limits", token: token)).status == 401)
        #expect(fake.handle(APITestOrg.get("/services/data/v59.0/sobjects", token: token)).status == 401)
        #expect(fake.requestLog.entries.last?.fault == nil)
        #expect(fake.requestLog.entries.dropLast().last?.fault == .expiredSession)
    }

    @Test func queryOnlyFaultsStayOnQueryEndpoints() throws {
        let faults = FaultRates(queryTimeout: 1, staleLocator: 1)
        var cfg = FakeSalesforceConfig(seed: 1)
        cfg.defaultBehaviour = EndpointBehaviour(faults: faults)
        let (fake, token) = try APITestOrg.fakeWithSession(config: cfg)
        // A query timeout can hit a query; a stale locator only a next-page request.
        let query = fake.handle(APITestOrg.get(APITestOrg.queryTarget("SELECT Id FROM Account"), token: token))
        #expect(query.status == 400 && query.errorCode == "QUERY_TIMEOUT")
        let more = fake.handle(APITestOrg.get("/services/data/v59.0/query/01g000000000000001-200", token: token))
        #expect(more.status == 400)
        #expect(fake.handle(APITestOrg.get("/services/data/v59.0/limits", token: token)).status == 200)
    }

    @Test func decisionsReplayAndDependOnTheToken() {
        let behaviour = EndpointBehaviour(latency: .uniform(min: 1, max: 100), faults: FaultRates(serverError: 0.3))
        func run(_ key: String, seed: UInt64 = 3) -> [FaultDecision] {
            (0..<200).map {
                FaultPlan.decide(
                    seed: seed, clientKey: key, counter: UInt64($0), endpoint: .query, behaviour: behaviour,
                    authenticated: true)
            }
        }
        #expect(run("tokenA") == run("tokenA"))
        #expect(run("tokenA") != run("tokenB"))
        #expect(run("tokenA") != run("tokenA", seed: 4))
        let faults = run("tokenA").filter { $0.fault == .serverError }.count
        #expect((30...90).contains(faults), "about 30% of 200, got \(faults)")
        #expect(run("tokenA").allSatisfy { (1...100).contains($0.delayMilliseconds) })
    }

    @Test func latencyDistributions() {
        var rng = SplitMix64(seed: 1)
        #expect(FaultPlan.sample(.none, &rng) == 0)
        #expect(FaultPlan.sample(.fixed(7), &rng) == 7)
        let draws = (0..<5000).map { _ in FaultPlan.sample(.logNormal(median: 20, p99: 200), &rng) }.sorted()
        let median = draws[2500], p99 = draws[4950]
        #expect((17...23).contains(median), "median \(median)")
        #expect((140...280).contains(p99), "p99 \(p99)")
    }

    @Test func latencyIsReportedNotSlept() throws {
        let (fake, token) = try APITestOrg.fakeWithSession(config: config(.limits, FaultRates(), latency: .fixed(250)))
        let started = ContinuousClock.now
        let response = fake.handle(APITestOrg.get("/services/data/v59.0/limits", token: token))
        #expect(response.delayMilliseconds == 250)
        #expect(ContinuousClock.now - started < .milliseconds(200))
        #expect(fake.requestLog.entries.last?.injectedDelayMilliseconds == 250)
    }

    @Test func configDecodesFromJSON() throws {
        let text = """
            {"seed": 4, "endpoints": {"query": {"latency": {"kind": "lognormal", "median": 20, "p99": 200},
              "faults": {"queryTimeout": 0.01}}}, "defaultBehaviour": {"latency": {"kind": "none"}, "faults": {}},
             "requestLogCapacity": 10, "queryCursorCapacity": 5, "dailyApiRequestsMax": 1000}
            """
        let config = try JSONDecoder().decode(FakeSalesforceConfig.self, from: Data(text.utf8))
        #expect(config.behaviour(for: .query).latency == .logNormal(median: 20, p99: 200))
        #expect(config.behaviour(for: .query).faults.queryTimeout == 0.01)
        #expect(config.behaviour(for: .limits) == EndpointBehaviour())
        let bad = #"{"kind": "gaussian"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(LatencyDistribution.self, from: Data(bad.utf8)) }
    }
}
