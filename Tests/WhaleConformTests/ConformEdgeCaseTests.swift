import Testing
import WhaleConform
import WhaleProtocol

/// The edge cases (issue 48), each against the reference server in process, on its own: the
/// server passes it, and with the catalog fault the case stands for switched on, the case fails
/// and names that fault. One case a server, so each takes seconds.
@Suite(.serialized) struct ConformEdgeCaseTests {
    struct Edge: Sendable, CustomStringConvertible {
        var id: String
        var fault: Fault
        var description: String { "\(id) / \(fault.rawValue)" }
    }

    static let edges: [Edge] = [
        Edge(id: "security.token-expired-just-now", fault: .tokenExpiryLeewayDay),
        Edge(id: "security.refresh-token-reused", fault: .refreshTokenReuse),
        Edge(id: "security.bad-revision-one-past-head", fault: .revisionPastHeadAccepted),
        Edge(id: "security.size-at-limit-and-one-over", fault: .sizeLimitOffByOne),
        Edge(id: "security.rate-at-burst-and-just-over", fault: .rateLimitOffByOne),
        Edge(id: "security.note-id-one-character-off", fault: .noteIdPrefixMatch),
        Edge(id: "model.pool-rejoin-within-one-update", fault: .rejoinLosesUpdate),
    ]

    @Test func eachEdgeCaseSuspectsItsServerSideFault() throws {
        for edge in Self.edges {
            let c = try #require(ConformSuite.cases.first { $0.id == edge.id }, "\(edge.id)")
            #expect(c.suspects == [edge.fault], "\(edge)")
            #expect(!edge.fault.isClientSide, "\(edge)")
        }
    }

    @Test(arguments: edges)
    func theReferenceServerPassesAndTheFaultFailsNamingIt(_ edge: Edge) async throws {
        let c = try #require(ConformSuite.cases.first { $0.id == edge.id })
        let clean = try await ConformServerTests.run(cases: [c])
        #expect(clean.map(\.verdict) == [.pass], "\(ConformServerTests.failures(clean))")
        let faulty = try await ConformServerTests.run(faults: [edge.fault], cases: [c])
        let result = try #require(faulty.first)
        guard case .fail = result.verdict else {
            Issue.record("\(edge.id) must fail with \(edge.fault.rawValue) on: \(ConformSummary.line(for: result))")
            return
        }
        #expect(ConformSummary.line(for: result).contains("catalog fault \(edge.fault.rawValue)"))
        #expect(ConformSummary(faulty).exitCode == 2)
    }
}
