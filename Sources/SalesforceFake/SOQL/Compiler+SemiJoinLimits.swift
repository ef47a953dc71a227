extension Compiler {
    /// Salesforce's rules for semi-joins and anti-joins (`Id IN (SELECT …)`), checked on the AST
    /// before anything compiles: no semi-join inside another one, none under OR or NOT, at most
    /// two per WHERE clause. The engine evaluates every semi-join once per query into a set, so a
    /// nested one would have no set to read (it trapped before this check existed).
    func checkSemiJoins(_ condition: Condition, insideSemiJoin: Bool) throws(SalesforceError) {
        var count = 0
        try walkSemiJoins(condition, insideSemiJoin: insideSemiJoin, underOr: false, underNot: false, count: &count)
    }

    private func walkSemiJoins(
        _ condition: Condition, insideSemiJoin: Bool, underOr: Bool, underNot: Bool, count: inout Int
    ) throws(SalesforceError) {
        switch condition {
        case .and(let items):
            for item in items {
                try walkSemiJoins(
                    item, insideSemiJoin: insideSemiJoin, underOr: underOr, underNot: underNot, count: &count)
            }
        case .or(let items):
            for item in items {
                try walkSemiJoins(
                    item, insideSemiJoin: insideSemiJoin, underOr: true, underNot: underNot, count: &count)
            }
        case .not(let inner):
            try walkSemiJoins(inner, insideSemiJoin: insideSemiJoin, underOr: underOr, underNot: true, count: &count)
        case .inQuery(_, _, _, let offset):
            if insideSemiJoin { throw malformed("Nesting of semi join sub-selects is not supported", at: offset) }
            if underOr { throw malformed("Semi join sub-selects are not allowed with the 'OR' operator", at: offset) }
            if underNot {
                throw malformed(
                    "Semi join sub-selects are only allowed at the top level WHERE expressions and not in nested WHERE expressions.",
                    at: offset)
            }
            count += 1
            if count > Compiler.semiJoinsMax {
                throw malformed("Maximum \(Compiler.semiJoinsMax) semi join sub-selects are allowed", at: offset)
            }
        case .compare, .like, .inList, .includes:
            break
        }
    }

    /// Salesforce allows two IN / NOT IN sub-selects per WHERE clause.
    static let semiJoinsMax = 2
}
