extension Parser {
    /// One item of the SELECT list: a field path, an aggregate, toLabel / FORMAT / FIELDS, or a
    /// parent-to-child subquery `(SELECT ... FROM Contacts)`.
    mutating func selectItem(nested: Bool) throws(SalesforceError) -> SelectItem {
        if current.isSymbol("(") {
            let at = advance().offset
            guard !nested else { throw error("Nesting of child relationship queries is not supported", at: at) }
            let inner = try parseQuery(nested: true)
            try expectSymbol(")")
            return .subquery(inner, offset: at)
        }
        if current.isKeyword("TYPEOF") { throw unsupported("TYPEOF", at: current.offset) }
        guard current.kind == .identifier, !Parser.reserved.contains(current.upper) else { throw unexpected() }
        guard peekNext.isSymbol("(") else { return .field(try path()) }
        let fnToken = advance()
        let fnName = fnToken.upper
        _ = advance()  // (
        let item: SelectItem
        if let fn = AggregateFunction(rawValue: fnName) {
            let p: Path? = fn == .count && current.isSymbol(")") ? nil : try path()
            try expectSymbol(")")
            item = .aggregate(fn, p, alias: try alias(), offset: fnToken.offset)
            if p == nil, case .aggregate(_, _, let a, _) = item, a != nil { throw unexpected() }
            return item
        }
        switch fnName {
        case "TOLABEL":
            let p = try path()
            try expectSymbol(")")
            return .toLabel(p, alias: try alias())
        case "FORMAT":
            if atName, peekNext.isSymbol("("), let fn = AggregateFunction(rawValue: current.upper) {
                let at = advance().offset
                _ = advance()
                let p = try path()
                try expectSymbol(")")
                try expectSymbol(")")
                return .formatAggregate(fn, p, alias: try alias(), offset: at)
            }
            let p = try path()
            try expectSymbol(")")
            return .format(p, alias: try alias())
        case "FIELDS":
            guard current.kind == .identifier, let scope = FieldsScope(rawValue: current.upper) else {
                throw unexpected()
            }
            _ = advance()
            try expectSymbol(")")
            return .fields(scope, offset: fnToken.offset)
        default:
            throw unsupported("\(fnToken.text)()", at: fnToken.offset)
        }
    }

    /// An optional alias after an aggregate or function.
    mutating func alias() throws(SalesforceError) -> String? {
        atName ? try name().text : nil
    }
}
