/// Splits a SOQL query into tokens. Strings keep both their decoded value and their raw content
/// (LIKE needs to know which `%` and `_` were escaped).
struct Lexer {
    let scalars: [Unicode.Scalar]
    let query: String
    /// UTF-8 bytes of the query and, per scalar index, its byte offset: token texts are cut
    /// from the bytes (offsets stay in scalars for error columns).
    let utf8: [UInt8]
    let byteOffsets: [Int]
    var pos = 0

    init(_ query: String) {
        self.query = query
        self.scalars = Array(query.unicodeScalars)
        self.utf8 = Array(query.utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(scalars.count + 1)
        var b = 0
        for s in scalars {
            offsets.append(b)
            b += UTF8.width(s)
        }
        offsets.append(b)
        self.byteOffsets = offsets
    }

    static func tokenize(_ query: String) throws(SalesforceError) -> [Token] {
        var lexer = Lexer(query)
        var tokens: [Token] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    func error(_ message: String, at offset: Int) -> SalesforceError {
        .malformedQuery(QueryErrorFormat.message(query: query, offset: offset, text: message))
    }

    private func text(_ from: Int, _ to: Int) -> String {
        String(decoding: utf8[byteOffsets[from]..<byteOffsets[to]], as: UTF8.self)
    }

    private static func isIdentStart(_ c: Unicode.Scalar) -> Bool {
        (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_"
    }
    private static func isIdentPart(_ c: Unicode.Scalar) -> Bool { isIdentStart(c) || isDigit(c) }
    private static func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }

    mutating func next() throws(SalesforceError) -> Token {
        while pos < scalars.count, scalars[pos].properties.isWhitespace { pos += 1 }
        guard pos < scalars.count else { return Token(kind: .end, text: "", raw: "<EOF>", offset: pos) }
        let start = pos
        let c = scalars[pos]
        if Lexer.isIdentStart(c) {
            while pos < scalars.count, Lexer.isIdentPart(scalars[pos]) { pos += 1 }
            let t = text(start, pos)
            return Token(kind: .identifier, text: t, raw: t, offset: start)
        }
        if Lexer.isDigit(c) { return try number(start) }
        if c == "'" { return try string(start) }
        let two = pos + 1 < scalars.count ? text(pos, pos + 2) : ""
        if ["!=", "<>", "<=", ">="].contains(two) {
            pos += 2
            return Token(kind: .symbol, text: two == "<>" ? "!=" : two, raw: two, offset: start)
        }
        if "(),.=<>:-+".unicodeScalars.contains(c) {
            pos += 1
            return Token(kind: .symbol, text: String(c), raw: String(c), offset: start)
        }
        pos += 1
        throw error("unexpected token: '\(c)'", at: start)
    }

    /// Numbers, dates (`2024-01-15`) and datetimes (`2024-01-15T10:30:00.000+0000`, `...Z`).
    private mutating func number(_ start: Int) throws(SalesforceError) -> Token {
        while pos < scalars.count, Lexer.isDigit(scalars[pos]) { pos += 1 }
        if pos - start == 4, pos < scalars.count, scalars[pos] == "-" {
            // A date: YYYY-MM-DD, maybe followed by a time.
            while pos < scalars.count, Lexer.isDigit(scalars[pos]) || scalars[pos] == "-" { pos += 1 }
            let dateText = text(start, pos)
            guard let days = CivilTime.parseDate(dateText) else {
                throw error("unexpected token: '\(dateText)'", at: start)
            }
            guard pos < scalars.count, scalars[pos] == "T" else {
                return Token(kind: .date(days), text: dateText, raw: dateText, offset: start)
            }
            while pos < scalars.count,
                Lexer.isIdentPart(scalars[pos]) || ":.+-".unicodeScalars.contains(scalars[pos])
            {
                pos += 1
            }
            let dt = text(start, pos)
            guard let ms = CivilTime.parseDateTime(dt) else { throw error("unexpected token: '\(dt)'", at: start) }
            return Token(kind: .dateTime(ms), text: dt, raw: dt, offset: start)
        }
        if pos < scalars.count, scalars[pos] == ".", pos + 1 < scalars.count, Lexer.isDigit(scalars[pos + 1]) {
            pos += 1
            while pos < scalars.count, Lexer.isDigit(scalars[pos]) { pos += 1 }
        }
        if pos < scalars.count, Lexer.isIdentStart(scalars[pos]) {
            while pos < scalars.count, Lexer.isIdentPart(scalars[pos]) { pos += 1 }
            let bad = text(start, pos)
            throw error("unexpected token: '\(bad)'", at: start)
        }
        let t = text(start, pos)
        return Token(kind: .number, text: t, raw: t, offset: start)
    }

    /// A quoted string with SOQL escapes: \' \" \\ \n \r \t \b \f \u#### and, kept for LIKE, \% \_.
    private mutating func string(_ start: Int) throws(SalesforceError) -> Token {
        pos += 1
        var value = String.UnicodeScalarView()
        let contentStart = pos
        while pos < scalars.count {
            let c = scalars[pos]
            if c == "'" {
                let raw = text(contentStart, pos)
                pos += 1
                return Token(kind: .string, text: String(value), raw: raw, offset: start)
            }
            if c == "\\" {
                guard pos + 1 < scalars.count else { break }
                let e = scalars[pos + 1]
                switch e {
                case "'", "\"", "\\": value.append(e)
                case "n": value.append("\n")
                case "r": value.append("\r")
                case "t": value.append("\t")
                case "b": value.append("\u{08}")
                case "f": value.append("\u{0C}")
                case "%", "_": value.append(e)
                case "u":
                    guard pos + 5 < scalars.count, let n = UInt32(text(pos + 2, pos + 6), radix: 16),
                        let u = Unicode.Scalar(n)
                    else {
                        throw error(
                            "Invalid string literal '\(text(contentStart, scalars.count))'. Illegal character sequence '\\u' in string literal.",
                            at: start)
                    }
                    value.append(u)
                    pos += 4
                default:
                    throw error(
                        "Invalid string literal '\(text(contentStart, min(scalars.count, pos + 2)))'. Illegal character sequence '\\\(e)' in string literal.",
                        at: start)
                }
                pos += 2
                continue
            }
            value.append(c)
            pos += 1
        }
        throw error("unexpected token: '\(text(start, scalars.count))'", at: start)
    }
}
