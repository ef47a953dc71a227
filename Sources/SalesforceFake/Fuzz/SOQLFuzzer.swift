import WhaleCore

/// Generates SOQL for fuzzing from a seed: queries built from the org's own schemas (valid or
/// nearly so: real objects, fields, relationships, child relationships, literals of the right
/// type or a wrong one), then mutated (tokens dropped, duplicated, swapped, spliced from another
/// query, bytes flipped, deep nesting, huge literals). Case `i` of seed `s` depends only on
/// `(s, i)`, so any one case replays alone.
///
/// ```swift
/// let fuzzer = SOQLFuzzer(org: org, seed: 7)
/// let soql = fuzzer.query(42)   // the same text on every platform and every run
/// ```
public struct SOQLFuzzer: Sendable {
    public let seed: UInt64
    let objects: [ObjectSchema]
    let allNames: [String]

    public init(org: Org, seed: UInt64) {
        self.seed = seed
        self.objects = org.schemas
        self.allNames = org.schemas.flatMap { schema in [schema.name] + schema.fields.map(\.name) }
    }

    /// The case generator of case `index`: independent of every other case.
    func generator(_ index: Int) -> SplitMix64 {
        var mix = SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03))
        return SplitMix64(seed: mix.next())
    }

    /// Query number `index`: a sixth strict grammar, a sixth loose grammar, the rest mutated.
    public func query(_ index: Int) -> String {
        var rng = generator(index)
        var grammar = SOQLGrammar(objects: objects, rng: rng)
        let kind = grammar.rng.below(12)
        grammar.strict = kind < 2
        let base = grammar.query(depth: 0)
        grammar.strict = false
        rng = grammar.rng
        switch kind {
        case 0, 1, 2, 3: return base
        case 4: return wrapDeep(base, &rng)
        case 5: return hugeLiteral(base, &rng)
        case 6:
            let other = grammar.query(depth: 0)
            return splice(base, other, &rng)
        case 7: return flipBytes(base, &rng)
        default: return mutateTokens(base, &rng)
        }
    }

    static let junk = [
        "(", ")", ",", ".", "'", "=", "!=", "<", "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "IN", "NULL", "LIMIT",
        "OFFSET", "GROUP BY", "ORDER BY", "HAVING", "-", ":", "2024-02-30", "9999999999999999999999", "\\", "COUNT(",
        "Owner.", "TODAY", "LAST_N_DAYS:99999999999", "NEXT_N_MONTHS:2147483648", "2147483648", "-2147483649", "1e5",
        "0.000000000000000000001", "'\u{0}'", "'\u{FFFF}'", "'é'", "\"", "`", ";", "%", "_", "USING SCOPE", "WITH",
        "FOR VIEW", "TYPEOF", "FIELDS(ALL)", "(SELECT Id FROM Contact)", "Id IN (SELECT AccountId FROM Contact)",
    ]

    func mutateTokens(_ text: String, _ rng: inout SplitMix64) -> String {
        var words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        for _ in 0..<(1 + rng.below(4)) {
            if words.isEmpty { words = ["SELECT"] }
            let at = rng.below(words.count)
            switch rng.below(5) {
            case 0: words.remove(at: at)
            case 1: words.insert(words[rng.below(words.count)], at: at)
            case 2: words.swapAt(at, rng.below(words.count))
            case 3: words[at] = rng.pick(Self.junk)
            default: words[at] = rng.pick(allNames)
            }
        }
        return words.joined(separator: " ")
    }

    func splice(_ a: String, _ b: String, _ rng: inout SplitMix64) -> String {
        let left = Array(a.unicodeScalars), right = Array(b.unicodeScalars)
        var out = String.UnicodeScalarView()
        out.append(contentsOf: left[..<rng.below(left.count + 1)])
        out.append(contentsOf: right[rng.below(right.count + 1)...])
        return String(out)
    }

    func flipBytes(_ text: String, _ rng: inout SplitMix64) -> String {
        var bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return text }
        for _ in 0..<(1 + rng.below(3)) {
            let at = rng.below(bytes.count)
            bytes[at] ^= UInt8(truncatingIfNeeded: 1 << rng.below(8))
        }
        // Invalid UTF-8 is repaired here as an HTTP server's decoding would; the API fuzz sends raw bytes.
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The WHERE clause wrapped in many parentheses or NOTs (up to past the parser's depth bound).
    func wrapDeep(_ text: String, _ rng: inout SplitMix64) -> String {
        // Past the parser's bound of 500 costs only tokens; 10,000 levels now and then.
        let n = rng.below(50) == 0 ? 10_000 : [10, 100, 499, 501, 2_000][rng.below(5)]
        let (open, close) = rng.below(2) == 0 ? ("(", ")") : ("NOT (", ")")
        let condition = String(repeating: open, count: n) + "Id != null" + String(repeating: close, count: n)
        if let range = text.range(of: " WHERE ") {
            return String(text[..<range.upperBound]) + condition + " AND " + String(text[range.upperBound...])
        }
        return text + " WHERE " + condition
    }

    func hugeLiteral(_ text: String, _ rng: inout SplitMix64) -> String {
        // Statements past 100,000 characters are refused before lexing; one in 20 tests that bound.
        let n = rng.below(20) == 0 ? 100_001 : [200, 1_000, 10_000][rng.below(3)]
        let literal: String
        switch rng.below(3) {
        case 0: literal = "'" + String(repeating: "a", count: n) + "'"
        case 1: literal = String(repeating: "9", count: min(n, 5_000))
        default: literal = "(" + Array(repeating: "'x'", count: n / 10).joined(separator: ",") + ")"
        }
        let words = text.split(separator: " ").map(String.init)
        var out = words
        out.insert(literal, at: rng.below(words.count + 1))
        return out.joined(separator: " ")
    }
}
