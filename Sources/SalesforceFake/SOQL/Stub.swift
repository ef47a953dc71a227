// Temporary: replaced by the parser and evaluator in the next commits.
struct CompiledQuery: Sendable {}
struct QueryCache: Sendable { init(capacity: Int) {} }
extension Org {
    func compiledQuery(_ text: String) throws(SalesforceError) -> CompiledQuery {
        throw .unknownException("SOQL engine not yet implemented")
    }
}
struct Evaluator {
    let org: Org
    let state: OrgState
    let apiVersion: String
    let includeDeleted: Bool
    func run(_ plan: CompiledQuery) throws(SalesforceError) -> SOQLResult {
        throw .unknownException("SOQL engine not yet implemented")
    }
}
