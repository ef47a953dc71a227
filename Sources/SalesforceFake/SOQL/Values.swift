/// Value helpers shared by filters, sorting and grouping.
enum Values {
    /// `a` equals `lowered` (already lower-cased) ignoring case, without allocating for ASCII.
    @inline(__always)
    static func equalsFolded(_ a: String, _ lowered: String) -> Bool {
        var ai = a.utf8.makeIterator()
        var bi = lowered.utf8.makeIterator()
        while true {
            let x = ai.next()
            let y = bi.next()
            guard let x else { return y == nil }
            guard let y else { return false }
            if x >= 0x80 || y >= 0x80 { return a.lowercased() == lowered }
            let fx = x >= 0x41 && x <= 0x5A ? x | 0x20 : x
            if fx != y { return false }
        }
    }

    /// Whether `value` starts with (or, `whole`, equals) `lowered` ignoring ASCII case; nil when
    /// either string is not ASCII (the caller then lower-cases properly).
    static func asciiFoldedPrefix(_ value: String, _ lowered: String, whole: Bool) -> Bool? {
        var vi = value.utf8.makeIterator()
        for y in lowered.utf8 {
            guard y < 0x80, let x = vi.next(), x < 0x80 else { return nil }
            let fx = x >= 0x41 && x <= 0x5A ? x | 0x20 : x
            if fx != y { return value.utf8.allSatisfy { $0 < 0x80 } ? false : nil }
        }
        guard whole else { return true }
        return vi.next() == nil
    }

    /// The normalized key used by IN lists, grouping, COUNT_DISTINCT and equality indexes.
    static func key(_ value: JSONValue) -> String? { EqualityIndex.key(value) }

    /// Total order used by ORDER BY and MIN / MAX for two non-null values of one field:
    /// text ignores case, numbers by value, booleans false < true, dates and datetimes by their
    /// ISO text (the canonical `+0000` form sorts chronologically).
    static func compare(_ a: JSONValue, _ b: JSONValue) -> Int {
        switch (a, b) {
        case let (.string(x), .string(y)):
            let lx = x.lowercased(), ly = y.lowercased()
            if lx != ly { return lx < ly ? -1 : 1 }
            return x == y ? 0 : (x < y ? -1 : 1)
        case let (.bool(x), .bool(y)):
            return x == y ? 0 : (x ? 1 : -1)
        default:
            if let x = a.doubleValue, let y = b.doubleValue { return x == y ? 0 : (x < y ? -1 : 1) }
            return 0
        }
    }

    /// Compares with nulls placed first or last.
    static func compare(_ a: JSONValue, _ b: JSONValue, nullsFirst: Bool) -> Int {
        switch (a.isNull, b.isNull) {
        case (true, true): return 0
        case (true, false): return nullsFirst ? -1 : 1
        case (false, true): return nullsFirst ? 1 : -1
        default: return compare(a, b)
        }
    }
}
