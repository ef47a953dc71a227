/// A compiled LIKE pattern: `%` any run, `_` one character, `\%` and `\_` literal; case-insensitive.
struct LikePattern: Sendable {
    enum Unit: Sendable, Equatable { case any, one, scalar(Unicode.Scalar) }
    let units: [Unit]
    /// Fast paths for the common shapes `abc`, `abc%`, `%abc`, `%abc%`.
    enum Shape: Sendable { case exact(String), prefix(String), suffix(String), contains(String), general }
    let shape: Shape

    /// Builds the pattern from the raw string content (escapes not yet decoded).
    init(raw: String) {
        var units: [Unit] = []
        var scalars = Array(raw.unicodeScalars)[...]
        while let c = scalars.popFirst() {
            if c == "\\", let e = scalars.popFirst() {
                switch e {
                case "n": units.append(.scalar("\n"))
                case "r": units.append(.scalar("\r"))
                case "t": units.append(.scalar("\t"))
                case "b": units.append(.scalar("\u{08}"))
                case "f": units.append(.scalar("\u{0C}"))
                case "u":
                    let hex = String(String.UnicodeScalarView(scalars.prefix(4)))
                    scalars = scalars.dropFirst(4)
                    if let n = UInt32(hex, radix: 16), let u = Unicode.Scalar(n) { units.append(.scalar(u)) }
                default: units.append(.scalar(e))
                }
            } else if c == "%" {
                if units.last != .any { units.append(.any) }
            } else if c == "_" {
                units.append(.one)
            } else {
                units.append(.scalar(c))
            }
        }
        units = units.map { unit in
            if case .scalar(let s) = unit { return .scalar(String(s).lowercased().unicodeScalars.first ?? s) }
            return unit
        }
        self.units = units
        func literal(_ slice: ArraySlice<Unit>) -> String? {
            var v = String.UnicodeScalarView()
            for u in slice {
                guard case .scalar(let s) = u else { return nil }
                v.append(s)
            }
            return String(v)
        }
        let starts = units.first == .any, ends = units.last == .any && units.count > 1
        let inner = units[(starts ? 1 : 0)..<(units.count - (ends ? 1 : 0))]
        if let text = literal(inner) {
            switch (starts, ends) {
            case (false, false): shape = .exact(text)
            case (false, true): shape = .prefix(text)
            case (true, false): shape = units.count == 1 ? .prefix("") : .suffix(text)
            case (true, true): shape = .contains(text)
            }
        } else {
            shape = .general
        }
    }

    func matches(_ value: String) -> Bool {
        // ASCII fast paths without allocating a lower-cased copy.
        switch shape {
        case .exact(let t): if let r = Values.asciiFoldedPrefix(value, t, whole: true) { return r }
        case .prefix(let t): if let r = Values.asciiFoldedPrefix(value, t, whole: false) { return r }
        default: break
        }
        let lower = value.lowercased()
        switch shape {
        case .exact(let t): return lower == t
        case .prefix(let t): return lower.hasPrefix(t)
        case .suffix(let t): return lower.hasSuffix(t)
        case .contains(let t): return t.isEmpty || lower.contains(t)
        case .general: return LikePattern.match(units[...], Array(lower.unicodeScalars)[...])
        }
    }

    /// Wildcard matching with backtracking to the last `%`.
    static func match(_ pattern: ArraySlice<Unit>, _ text: ArraySlice<Unicode.Scalar>) -> Bool {
        let p = Array(pattern), t = Array(text)
        var pi = 0, ti = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count, p[pi] == .one || p[pi] == .scalar(t[ti]) {
                pi += 1
                ti += 1
            } else if pi < p.count, p[pi] == .any {
                star = pi
                mark = ti
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                ti = mark
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == .any { pi += 1 }
        return pi == p.count
    }
}
