import GraphQL
import NIOConcurrencyHelpers

/// GraphQL documents already parsed and validated, by query text. An app sends the same few
/// queries over and over (the load runner's users do too), and parsing and validating each one
/// again against the whole schema cost more than resolving it. Only documents that validated
/// are kept, and at most `capacity` of them (a client sending endless distinct queries empties
/// the cache rather than growing it).
final class ValidatedDocuments: @unchecked Sendable {
    // @unchecked: `Document` is an immutable value once parsed, but GraphQL does not mark it
    // Sendable; the dictionary is only touched under the lock.
    private let schema: GraphQLSchema
    private let capacity: Int
    private let lock = NIOLock()
    private var documents: [String: Document] = [:]

    /// A query's verdict: its document, or what validation found wrong with it.
    enum Outcome {
        case valid(Document)
        case invalid([GraphQLError])
    }

    init(schema: GraphQLSchema, capacity: Int = 256) {
        self.schema = schema
        self.capacity = capacity
    }

    /// The validated document for `query`, or the validation errors a client gets for it. A query
    /// that does not parse throws the parser's error, as `graphql(schema:request:)` does.
    func document(for query: String) throws -> Outcome {
        if let cached = lock.withLock({ documents[query] }) { return .valid(cached) }
        let document = try parse(source: Source(body: query, name: "GraphQL request"))
        let errors = validate(schema: schema, ast: document, rules: specifiedRules)
        guard errors.isEmpty else { return .invalid(errors) }
        lock.withLock {
            if documents.count >= capacity { documents.removeAll(keepingCapacity: true) }
            documents[query] = document
        }
        return .valid(document)
    }

    var count: Int { lock.withLock { documents.count } }
}
