/// Recursive-descent parser from tokens to `QueryAST`. Clause order follows Salesforce:
/// SELECT, FROM, USING SCOPE, WHERE, WITH, GROUP BY, HAVING, ORDER BY, LIMIT, OFFSET, FOR.
struct Parser {
    let query: String
    let tokens: [Token]
    var index = 0
    /// How deep the conditions being parsed are nested (parentheses, NOT, sub-selects): bounded
    /// so a hostile query cannot exhaust the stack of the thread serving it.
    var depth = 0
    /// Deeper than this is `QUERY_TOO_COMPLICATED`; real queries nest a handful of levels.
    static let depthMax = 500
    /// Salesforce refuses statements longer than 100,000 characters.
    static let lengthMax = 100_000

    /// Words that can never be a field, object or alias name.
    static let reserved: Set<String> = [
        "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "LIMIT", "OFFSET", "ORDER", "GROUP", "BY", "HAVING", "IN",
        "LIKE", "INCLUDES", "EXCLUDES", "NULL", "TRUE", "FALSE", "ASC", "DESC", "NULLS", "WITH", "USING", "FOR",
        "TYPEOF", "WHEN", "THEN", "ELSE", "END", "ROLLUP", "CUBE", "UPDATE",
    ]

    init(query: String) throws(SalesforceError) {
        self.query = query
        self.tokens = try Lexer.tokenize(query)
    }

    static func parse(_ query: String) throws(SalesforceError) -> QueryAST {
        // UTF-8 bytes bound the characters from above, so most queries skip counting scalars.
        guard query.utf8.count <= lengthMax || query.unicodeScalars.count <= lengthMax else {
            throw .malformedQuery("SOQL statements cannot be longer than \(lengthMax) characters.")
        }
        var parser = try Parser(query: query)
        let ast = try parser.parseQuery(nested: false)
        guard parser.current.kind == .end else { throw parser.unexpected() }
        return ast
    }

    var current: Token { tokens[index] }
    var peekNext: Token { tokens[min(index + 1, tokens.count - 1)] }

    mutating func advance() -> Token {
        let t = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return t
    }

    func error(_ message: String, at offset: Int) -> SalesforceError {
        .malformedQuery(QueryErrorFormat.message(query: query, offset: offset, text: message))
    }

    func unexpected(_ token: Token? = nil) -> SalesforceError {
        let t = token ?? current
        return error(
            "unexpected token: \(t.kind == .end ? "<EOF>" : "'\(t.kind == .string ? t.raw : t.raw)'")", at: t.offset)
    }

    func unsupported(_ what: String, at offset: Int) -> SalesforceError {
        error("\(what) is not supported by this fake Salesforce", at: offset)
    }

    mutating func expectKeyword(_ keyword: String) throws(SalesforceError) {
        guard current.isKeyword(keyword) else { throw unexpected() }
        _ = advance()
    }

    mutating func expectSymbol(_ symbol: String) throws(SalesforceError) {
        guard current.isSymbol(symbol) else { throw unexpected() }
        _ = advance()
    }

    mutating func acceptKeyword(_ keyword: String) -> Bool {
        if current.isKeyword(keyword) { _ = advance(); return true }
        return false
    }

    /// A non-reserved identifier.
    mutating func name() throws(SalesforceError) -> Name {
        guard current.kind == .identifier, !Parser.reserved.contains(current.upper) else { throw unexpected() }
        let t = advance()
        return Name(text: t.text, offset: t.offset)
    }

    var atName: Bool { current.kind == .identifier && !Parser.reserved.contains(current.upper) }

    mutating func path() throws(SalesforceError) -> Path {
        var segments = [try name()]
        while current.isSymbol(".") {
            _ = advance()
            segments.append(try name())
        }
        return Path(segments: segments)
    }

    mutating func parseQuery(nested: Bool) throws(SalesforceError) -> QueryAST {
        try expectKeyword("SELECT")
        var select: [SelectItem] = [try selectItem(nested: nested)]
        while current.isSymbol(",") {
            _ = advance()
            select.append(try selectItem(nested: nested))
        }
        try expectKeyword("FROM")
        if current.isSymbol("(") || current.kind != .identifier { throw unexpected() }
        let from = try name()
        var ast = QueryAST(select: select, from: from)
        if current.isKeyword("AS") {
            _ = advance(); ast.alias = try name().text
        } else if atName {
            ast.alias = try name().text
        }
        if current.isKeyword("USING") {
            let at = advance().offset
            try expectKeyword("SCOPE")
            let scope = try name()
            // Every record is visible to the one user of the fake, so EVERYTHING is the default scope.
            guard scope.text.uppercased() == "EVERYTHING" else {
                throw unsupported("USING SCOPE \(scope.text)", at: at)
            }
        }
        if acceptKeyword("WHERE") { ast.whereClause = try condition() }
        if current.isKeyword("WITH") {
            let at = advance().offset
            let what = current.upper
            // Sharing and field-level security do not exist in the fake: these modes change nothing.
            guard current.kind == .identifier, ["SECURITY_ENFORCED", "USER_MODE", "SYSTEM_MODE"].contains(what) else {
                throw unsupported("WITH \(current.raw)", at: at)
            }
            _ = advance()
        }
        if current.isKeyword("GROUP") {
            _ = advance()
            try expectKeyword("BY")
            if current.isKeyword("ROLLUP") || current.isKeyword("CUBE") {
                throw unsupported("GROUP BY \(current.raw.uppercased())", at: current.offset)
            }
            ast.groupBy = [try path()]
            while current.isSymbol(",") {
                _ = advance()
                ast.groupBy.append(try path())
            }
        }
        if acceptKeyword("HAVING") { ast.having = try condition() }
        if current.isKeyword("ORDER") {
            _ = advance()
            try expectKeyword("BY")
            ast.orderBy = [try orderItem()]
            while current.isSymbol(",") {
                _ = advance()
                ast.orderBy.append(try orderItem())
            }
        }
        if current.isKeyword("LIMIT") {
            ast.limitOffset = advance().offset
            ast.limit = try integer()
        }
        if current.isKeyword("OFFSET") {
            ast.offsetOffset = advance().offset
            ast.offset = try integer()
        }
        if current.isKeyword("FOR") {
            let at = advance().offset
            let what = current.upper
            // FOR VIEW / FOR REFERENCE only update "recently viewed" data the fake does not keep.
            guard current.kind == .identifier, what == "VIEW" || what == "REFERENCE" else {
                throw unsupported("FOR \(current.raw)", at: at)
            }
            _ = advance()
            if current.isSymbol(","), peekNext.isKeyword("VIEW") || peekNext.isKeyword("REFERENCE") {
                _ = advance(); _ = advance()
            }
        }
        if current.isKeyword("UPDATE") { throw unsupported("UPDATE \(peekNext.raw)", at: current.offset) }
        return ast
    }

    /// LIMIT and OFFSET values are 32-bit integers in Salesforce; larger ones are unexpected tokens
    /// (and `LIMIT + OFFSET` can then never overflow).
    mutating func integer() throws(SalesforceError) -> Int {
        guard current.kind == .number, let n = Int32(current.text) else { throw unexpected() }
        _ = advance()
        return Int(n)
    }

    mutating func orderItem() throws(SalesforceError) -> OrderItem {
        let key: OrderItem.Key
        if atName, peekNext.isSymbol("("), let fn = AggregateFunction(rawValue: current.upper) {
            let at = advance().offset
            _ = advance()
            let p: Path? = fn == .count && current.isSymbol(")") ? nil : try path()
            try expectSymbol(")")
            key = .aggregate(fn, p, offset: at)
        } else if atName, peekNext.isSymbol("(") {
            throw unsupported("ORDER BY \(current.raw)()", at: current.offset)
        } else {
            key = .path(try path())
        }
        var item = OrderItem(key: key, descending: false, nullsFirst: nil)
        if acceptKeyword("DESC") { item.descending = true } else { _ = acceptKeyword("ASC") }
        if acceptKeyword("NULLS") {
            if acceptKeyword("FIRST") {
                item.nullsFirst = true
            } else if acceptKeyword("LAST") {
                item.nullsFirst = false
            } else {
                throw unexpected()
            }
        }
        return item
    }
}
