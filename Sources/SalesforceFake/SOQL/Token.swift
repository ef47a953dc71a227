/// One lexical token of a SOQL query. `offset` is the index of its first Unicode scalar in the
/// query text, so errors can point at it like Salesforce does (`ERROR at Row:1:Column:11`).
struct Token: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// A name or keyword (keywords are recognized case-insensitively by the parser).
        case identifier
        /// A quoted string; `text` holds the decoded value, `raw` the content between the quotes.
        case string
        /// An unsigned integer or decimal number.
        case number
        /// `2024-01-15`, as days since 1970-01-01.
        case date(Int)
        /// `2024-01-15T10:30:00Z`, as milliseconds since the epoch (UTC).
        case dateTime(Int)
        /// Punctuation and operators: ( ) , . = != <> < <= > >= : -
        case symbol
        case end
    }

    var kind: Kind
    /// Identifier / symbol / number text, or the decoded string value.
    var text: String
    /// Source text of the token (strings without their quotes).
    var raw: String
    var offset: Int
    /// Upper-cased identifier text, computed once (keyword checks run many times per token).
    var upper: String

    init(kind: Kind, text: String, raw: String, offset: Int) {
        self.kind = kind
        self.text = text
        self.raw = raw
        self.offset = offset
        self.upper = kind == .identifier ? text.uppercased() : ""
    }

    /// Whether this is the identifier `keyword` in any case.
    func isKeyword(_ keyword: String) -> Bool {
        kind == .identifier && upper == keyword
    }

    func isSymbol(_ symbol: String) -> Bool { kind == .symbol && text == symbol }

    /// The token as error messages quote it.
    var display: String {
        switch kind {
        case .end: return "<EOF>"
        case .string: return "'\(raw)'"
        default: return raw
        }
    }
}
