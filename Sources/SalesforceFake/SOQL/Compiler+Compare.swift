extension Compiler {
    /// `field op literal` with Salesforce semantics: text ignores case; `!=` is true for null
    /// values; dates and datetimes compare as ranges (a date literal is a whole span of days).
    func compareTest(_ op: ComparisonOperator, _ literal: Literal, field: FieldSchema, offset: Int)
        throws(SalesforceError) -> ValueTest
    {
        if literal == .null {
            switch op {
            case .equal: return { $0.isNull }
            case .notEqual: return { !$0.isNull }
            default: throw malformed("invalid operator on null: \(op.rawValue)", at: offset)
            }
        }
        switch field.type {
        case .id, .reference:
            guard case .string(let s, _) = literal else { throw literalTypeError(field, offset) }
            guard let id = SalesforceId.to18(s) else { throw invalidId(s, offset) }
            return textTest(op, id.lowercased())
        case .boolean:
            guard case .bool(let b) = literal else { throw literalTypeError(field, offset) }
            switch op {
            case .equal: return { $0.boolValue == b }
            case .notEqual: return { $0.boolValue != b }
            default: throw malformed("invalid operator on boolean field \(field.name): \(op.rawValue)", at: offset)
            }
        case .int, .double, .currency, .percent:
            guard case .number(let text) = literal, let n = Double(text) else { throw literalTypeError(field, offset) }
            return { value in
                guard let v = value.doubleValue else { return op == .notEqual }
                switch op {
                case .equal: return v == n
                case .notEqual: return v != n
                case .less: return v < n
                case .lessOrEqual: return v <= n
                case .greater: return v > n
                case .greaterOrEqual: return v >= n
                }
            }
        case .date:
            let range: (Int, Int)
            switch literal {
            case .date(let d): range = (d, d + 1)
            case .dateLiteral(let name, let n): let r = try dateLiteral(name, n, offset); range = (r.start, r.end)
            default: throw literalTypeError(field, offset)
            }
            return Compiler.rangeTest(op, range) { value in value.stringValue.flatMap(CivilTime.parseDate) }
        case .datetime:
            let range: (Int, Int)
            switch literal {
            case .dateTime(let ms): range = (ms, ms + 1)
            case .dateLiteral(let name, let n):
                let r = try dateLiteral(name, n, offset)
                range = (
                    DateLiterals.startMillis(ofDay: r.start, org.settings),
                    DateLiterals.startMillis(ofDay: r.end, org.settings)
                )
            default: throw literalTypeError(field, offset)
            }
            return Compiler.rangeTest(op, range) { value in value.stringValue.flatMap(CivilTime.parseDateTime) }
        default:
            guard case .string(let s, _) = literal else {
                if case .dateLiteral(let name, _) = literal {
                    throw malformed("unexpected token: '\(name)'", at: offset)
                }
                throw literalTypeError(field, offset)
            }
            return textTest(op, s.lowercased())
        }
    }

    func dateLiteral(_ name: String, _ n: Int?, _ offset: Int) throws(SalesforceError) -> DateLiterals.DayRange {
        guard let range = DateLiterals.range(name, n: n, settings: org.settings) else {
            throw malformed("unexpected token: '\(name)\(n.map { ":\($0)" } ?? "")'", at: offset)
        }
        return range
    }

    func textTest(_ op: ComparisonOperator, _ lowered: String) -> ValueTest {
        switch op {
        case .equal:
            return { value in
                guard case .string(let s) = value else { return false }
                return Values.equalsFolded(s, lowered)
            }
        case .notEqual:
            return { value in
                guard case .string(let s) = value else { return true }
                return !Values.equalsFolded(s, lowered)
            }
        default:
            return { value in
                guard case .string(let s) = value else { return false }
                let l = s.lowercased()
                switch op {
                case .less: return l < lowered
                case .lessOrEqual: return l <= lowered
                case .greater: return l > lowered
                default: return l >= lowered
                }
            }
        }
    }

    /// Compares a value's position on an axis (days or milliseconds) with `start ..< end`.
    static func rangeTest(
        _ op: ComparisonOperator, _ range: (Int, Int), _ read: @escaping @Sendable (JSONValue) -> Int?
    )
        -> ValueTest
    {
        let (start, end) = range
        return { value in
            guard let x = read(value) else { return op == .notEqual }
            switch op {
            case .equal: return x >= start && x < end
            case .notEqual: return !(x >= start && x < end)
            case .less: return x < start
            case .lessOrEqual: return x < end
            case .greater: return x >= end
            case .greaterOrEqual: return x >= start
            }
        }
    }
}
