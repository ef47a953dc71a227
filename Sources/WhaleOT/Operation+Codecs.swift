/// The Whaler wire form of an operation: two parallel arrays (PROTOCOL.md §2). Component i is
/// retain `n[i]` when `n[i] > 0` and `s[i] == ""`, delete `-n[i]` when `n[i] < 0`, insert `s[i]`
/// when `n[i] == 0`.
///
/// ```swift
/// let wire = WireOperation(n: [6, 0, 4], s: ["", "w", ""])   // retain 6, insert "w", retain 4
/// let op = try wire.operation()
/// ```
public struct WireOperation: Hashable, Sendable, Codable {
    public var n: [Int]
    public var s: [String]
    public init(n: [Int], s: [String]) {
        self.n = n
        self.s = s
    }

    /// Decodes into a canonical operation, rejecting anything malformed with a precise error.
    public func operation() throws(OTError) -> Operation {
        guard n.count == s.count else { throw .arrayLengthMismatch(n: n.count, s: s.count) }
        var op = Operation(capacity: n.count)
        var budget = LengthBudget()
        for index in n.indices {
            let count = n[index], text = s[index]
            if count > 0 {
                guard text.isEmpty else {
                    throw .malformedComponent(index: index, reason: "retain \(count) carries text \"\(text)\"")
                }
                try budget.add(count, index: index)
                op.retain(count)
            } else if count < 0 {
                let length = try LengthBudget.deleteLength(count, index: index)
                guard text.isEmpty else {
                    throw .malformedComponent(index: index, reason: "delete \(length) carries text \"\(text)\"")
                }
                try budget.add(length, index: index)
                op.delete(length)
            } else {
                guard !text.isEmpty else {
                    throw .malformedComponent(index: index, reason: "n is 0 and s is empty (an empty insert)")
                }
                let length = text.unicodeScalars.count
                try budget.add(length, index: index)
                op.insert(text, count: length)
            }
        }
        return op
    }
}

extension Operation {
    /// The Whaler wire form of this operation.
    public var wire: WireOperation {
        var n: [Int] = [], s: [String] = []
        n.reserveCapacity(components.count)
        s.reserveCapacity(components.count)
        for component in components {
            switch component {
            case .retain(let k): n.append(k); s.append("")
            case .insert(let text, _): n.append(0); s.append(text)
            case .delete(let k): n.append(-k); s.append("")
            }
        }
        return WireOperation(n: n, s: s)
    }
}

/// One element of the ot.js JSON form: a positive integer retains, a negative one deletes,
/// a string inserts.
public enum OTJSComponent: Hashable, Sendable, Codable {
    case number(Int)
    case text(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .text(text)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "an ot.js component is an integer (retain > 0, delete < 0) or a string (insert)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let n): try container.encode(n)
        case .text(let s): try container.encode(s)
        }
    }
}

extension Operation {
    /// Decodes the ot.js JSON form (`[6, "w", -2, 4]`), rejecting zero and empty components.
    public init(otjs elements: [OTJSComponent]) throws(OTError) {
        self.init(capacity: elements.count)
        var budget = LengthBudget()
        for (index, element) in elements.enumerated() {
            switch element {
            case .number(let n) where n > 0:
                try budget.add(n, index: index)
                retain(n)
            case .number(let n) where n < 0:
                let length = try LengthBudget.deleteLength(n, index: index)
                try budget.add(length, index: index)
                delete(length)
            case .number: throw .malformedComponent(index: index, reason: "0 is neither a retain nor a delete")
            case .text(let s) where s.isEmpty: throw .malformedComponent(index: index, reason: "empty insert \"\"")
            case .text(let s):
                let length = s.unicodeScalars.count
                try budget.add(length, index: index)
                insert(s, count: length)
            }
        }
    }

    /// The ot.js JSON form of this operation.
    public var otjs: [OTJSComponent] {
        components.map { component in
            switch component {
            case .retain(let n): .number(n)
            case .insert(let s, _): .text(s)
            case .delete(let n): .number(-n)
            }
        }
    }
}

/// Operations encode and decode as the ot.js JSON form.
extension Operation: Codable {
    public init(from decoder: any Decoder) throws {
        let elements = try [OTJSComponent](from: decoder)
        do {
            try self.init(otjs: elements)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try otjs.encode(to: encoder)
    }
}

extension Operation: CustomStringConvertible {
    /// A compact, readable form: `[r6, i"w", d2, r4]`.
    public var description: String {
        "["
            + components.map { component -> String in
                switch component {
                case .retain(let n): "r\(n)"
                case .insert(let s, _): "i\(String(reflecting: s))"
                case .delete(let n): "d\(n)"
                }
            }.joined(separator: ", ") + "]"
    }
}
