extension Parser {
    /// A WHERE / HAVING expression. AND and OR may not be mixed at one level without
    /// parentheses: Salesforce rejects `a = 1 AND b = 2 OR c = 3`, so does this parser.
    mutating func condition() throws(SalesforceError) -> Condition {
        var items = [try unaryCondition()]
        var op: String?
        while current.isKeyword("AND") || current.isKeyword("OR") {
            let word = current.upper
            if let op, op != word { throw unexpected() }
            op = word
            _ = advance()
            items.append(try unaryCondition())
        }
        guard let op else { return items[0] }
        return op == "AND" ? .and(items) : .or(items)
    }

    mutating func unaryCondition() throws(SalesforceError) -> Condition {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Parser.depthMax else {
            throw SalesforceError(
                errorCode: "QUERY_TOO_COMPLICATED",
                message: QueryErrorFormat.message(
                    query: query, offset: current.offset,
                    text: "Query is too complicated: conditions nested more than \(Parser.depthMax) levels deep"),
                httpStatus: 400)
        }
        if acceptKeyword("NOT") { return .not(try unaryCondition()) }
        if current.isSymbol("(") {
            _ = advance()
            let inner = try condition()
            try expectSymbol(")")
            return inner
        }
        return try simpleCondition()
    }

    mutating func operand() throws(SalesforceError) -> Operand {
        if atName, peekNext.isSymbol("(") {
            let fnToken = advance()
            guard let fn = AggregateFunction(rawValue: fnToken.upper) else {
                throw unsupported("\(fnToken.text)() in a condition", at: fnToken.offset)
            }
            _ = advance()
            let p: Path? = fn == .count && current.isSymbol(")") ? nil : try path()
            try expectSymbol(")")
            return .aggregate(fn, p, offset: fnToken.offset)
        }
        return .path(try path())
    }

    mutating func simpleCondition() throws(SalesforceError) -> Condition {
        let lhs = try operand()
        let opToken = current
        if opToken.kind == .symbol, let op = ComparisonOperator(rawValue: opToken.text) {
            _ = advance()
            return .compare(lhs, op, try literal(), offset: opToken.offset)
        }
        if acceptKeyword("LIKE") { return .like(lhs, try literal(), offset: opToken.offset) }
        var negated = false
        if current.isKeyword("NOT"), peekNext.isKeyword("IN") {
            _ = advance()
            negated = true
        }
        if acceptKeyword("IN") {
            try expectSymbol("(")
            if current.isKeyword("SELECT") {
                let inner = try parseQuery(nested: true)
                try expectSymbol(")")
                return .inQuery(lhs, inner, negated: negated, offset: opToken.offset)
            }
            let values = try literalList()
            return .inList(lhs, values, negated: negated, offset: opToken.offset)
        }
        if current.isKeyword("INCLUDES") || current.isKeyword("EXCLUDES") {
            let excludes = advance().isKeyword("EXCLUDES")
            try expectSymbol("(")
            return .includes(lhs, try literalList(), excludes: excludes, offset: opToken.offset)
        }
        throw unexpected()
    }

    /// `literal, literal, ...)` (the opening parenthesis already read).
    mutating func literalList() throws(SalesforceError) -> [Literal] {
        var values = [try literal()]
        while current.isSymbol(",") {
            _ = advance()
            values.append(try literal())
        }
        try expectSymbol(")")
        return values
    }

    mutating func literal() throws(SalesforceError) -> Literal {
        let t = current
        switch t.kind {
        case .string:
            _ = advance()
            return .string(value: t.text, raw: t.raw)
        case .number:
            _ = advance()
            return .number(t.text)
        case .date(let days):
            _ = advance()
            return .date(days)
        case .dateTime(let ms):
            _ = advance()
            return .dateTime(ms)
        case .symbol where t.text == "-" || t.text == "+":
            _ = advance()
            guard current.kind == .number else { throw unexpected() }
            let n = advance()
            return .number(t.text == "-" ? "-" + n.text : n.text)
        case .symbol where t.text == ":":
            throw unsupported("Bind variable", at: t.offset)
        case .identifier:
            let word = t.upper
            _ = advance()
            switch word {
            case "NULL": return .null
            case "TRUE": return .bool(true)
            case "FALSE": return .bool(false)
            default:
                if current.isSymbol(":") {
                    _ = advance()
                    guard current.kind == .number, let n = Int(current.text) else { throw unexpected() }
                    _ = advance()
                    return .dateLiteral(word, n)
                }
                return .dateLiteral(word, nil)
            }
        default:
            throw unexpected()
        }
    }
}
