import GraphQL
import Testing
@testable import WhaleServer

/// The GraphQL document cache: what it keeps, what it refuses, and its bound.
@Suite struct ValidatedDocumentsTests {
    let api: WhalerGraphQLAPI
    init() throws { api = try WhalerGraphQLAPI() }

    @Test func aValidQueryIsParsedOnceAndKept() throws {
        let documents = ValidatedDocuments(schema: api.schema.schema)
        let query = "query { organization { id name } }"
        guard case .valid(let first) = try documents.document(for: query) else {
            Issue.record("a valid query was refused"); return
        }
        guard case .valid(let second) = try documents.document(for: query) else {
            Issue.record("a valid query was refused"); return
        }
        #expect(first.definitions.count == second.definitions.count)
        #expect(documents.count == 1)
    }

    @Test func anInvalidQueryGetsItsErrorsAndIsNotKept() throws {
        let documents = ValidatedDocuments(schema: api.schema.schema)
        guard case .invalid(let errors) = try documents.document(for: "query { noSuchField }") else {
            Issue.record("an unknown field passed validation"); return
        }
        #expect(errors.contains { $0.message.contains("noSuchField") })
        #expect(documents.count == 0)
        // A query that does not parse throws, as graphql(schema:request:) does.
        #expect(throws: GraphQLError.self) { _ = try documents.document(for: "query { organization { id ") }
        #expect(documents.count == 0)
    }

    @Test func distinctQueriesNeverGrowItPastItsCapacity() throws {
        let documents = ValidatedDocuments(schema: api.schema.schema, capacity: 8)
        for i in 0..<50 {
            guard case .valid = try documents.document(for: "query Q\(i) { organization { id } }") else {
                Issue.record("Q\(i) refused"); return
            }
            #expect(documents.count <= 8)
        }
    }
}
