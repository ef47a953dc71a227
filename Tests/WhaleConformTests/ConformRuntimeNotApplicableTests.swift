import Testing
@testable import WhaleConform
import WhaleProtocol

/// A case that finds out while it runs that the server lacks the edge it probes (refresh tokens
/// never rotated, account ids it always makes up) ends `n/a` with its reason, not FAIL, and does
/// not fail the run; a plain failure still does.
@Suite struct ConformRuntimeNotApplicableTests {
    @Test func aCaseThatFindsTheEdgeMissingIsNotApplicableAndAFailureStillFails() async {
        let missing = ConformCase("security.some-edge", "An edge this server lacks.") {
            _ async throws(ConformFailure) in
            throw ConformFailure.notApplicable("the server hands the same refresh token back")
        }
        let broken = ConformCase("security.other-edge", "An edge this server gets wrong.") {
            _ async throws(ConformFailure) in
            throw ConformFailure("refused nothing")
        }
        // No case here opens a connection, so the address is never dialled.
        let results = await ConformSuite.run(ConformTarget(baseURL: "http://127.0.0.1:9"), cases: [missing, broken])
        #expect(
            results.map(\.verdict) == [
                .notApplicable(reason: "the server hands the same refresh token back"),
                .fail(evidence: "refused nothing"),
            ])
        #expect(
            ConformSummary.line(for: results[0])
                == "n/a   security.some-edge: the server hands the same refresh token back")
        #expect(ConformSummary(Array(results.prefix(1))).exitCode == 0)
        #expect(ConformSummary(results).exitCode == 2)
    }
}
