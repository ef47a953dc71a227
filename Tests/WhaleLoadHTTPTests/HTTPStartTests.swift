import Foundation
import NIOConcurrencyHelpers
import SalesforceFake
import Testing
import WhaleLoad
import SalesforceHTTP
import WhalesimTesting

/// `start(_:timeout:then:)`: a request with no task waiting for it, what the load runner's model
/// pages refetch through after a server restart (issue 21: a task per fetch, up to 900 at once,
/// was a third of the restart's memory peak). Each outcome reaches its callback exactly once:
/// an answer, a transport error, or the executor's shutdown.
@Suite(.serialized) struct HTTPStartTests {
    /// The outcomes a callback received, in order.
    final class Outcomes: Sendable {
        let all = NIOLockedValueBox<[Result<HTTPResult, HTTPTransportError>]>([])
        func add(_ outcome: Result<HTTPResult, HTTPTransportError>) { all.withLockedValue { $0.append(outcome) } }
        func waitFor(_ n: Int, seconds: Int = 20) async throws {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while all.withLockedValue({ $0.count }) < n, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        var statuses: [Int] { all.withLockedValue { $0.compactMap { try? $0.get().status } } }
        var errors: [HTTPTransportError] {
            all.withLockedValue { $0.compactMap { if case .failure(let e) = $0 { e } else { nil } } }
        }
    }

    @Test(arguments: HTTPClientKind.allCases)
    func aBurstOfStartedRequestsAllComeBackOnce(kind: HTTPClientKind) async throws {
        let server = try await FakeSalesforceServer.start(org: try HTTPExecutorTests.loadSmallOrg())
        let http = HTTPExecutors.make(kind)
        let outcomes = Outcomes()
        for _ in 0..<50 {
            http.start(HTTPRequestSpec(url: "\(server.httpURL)/services/data/"), timeout: .seconds(20)) {
                outcomes.add($0)
            }
        }
        // A 404 is an answer like any other.
        http.start(HTTPRequestSpec(url: "\(server.httpURL)/no/such/path"), timeout: .seconds(20)) { outcomes.add($0) }
        try await outcomes.waitFor(51)
        try await Task.sleep(for: .milliseconds(100))
        #expect(outcomes.all.withLockedValue { $0.count } == 51)
        #expect(outcomes.statuses.filter { $0 == 200 }.count == 50)
        #expect(outcomes.statuses.filter { $0 == 404 }.count == 1)
        await http.shutdown()
        await server.stop()
    }

    @Test(arguments: HTTPClientKind.allCases)
    func aRefusedConnectIsATransportError(kind: HTTPClientKind) async throws {
        let http = HTTPExecutors.make(kind)
        let outcomes = Outcomes()
        http.start(HTTPRequestSpec(url: "http://127.0.0.1:1/"), timeout: .seconds(10)) { outcomes.add($0) }
        try await outcomes.waitFor(1)
        #expect(outcomes.errors.map(\.kind) == [.connect])
        await http.shutdown()
    }

    /// Requests out when the executor shuts down, and one started after, all get their outcome.
    @Test(arguments: HTTPClientKind.allCases)
    func aShutdownAnswersEveryStartedRequest(kind: HTTPClientKind) async throws {
        let listener = try SilentListener()
        let http = HTTPExecutors.make(kind)
        let outcomes = Outcomes()
        for _ in 0..<20 {
            http.start(HTTPRequestSpec(url: "http://127.0.0.1:\(listener.port)/"), timeout: .seconds(60)) {
                outcomes.add($0)
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        await http.shutdown()
        http.start(HTTPRequestSpec(url: "http://127.0.0.1:\(listener.port)/"), timeout: .seconds(60)) {
            outcomes.add($0)
        }
        try await outcomes.waitFor(21, seconds: 10)
        #expect(outcomes.all.withLockedValue { $0.count } == 21)
        #expect(outcomes.errors.count == 21)
        listener.close()
    }
}
