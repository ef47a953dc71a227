import WhaleProtocol
import WhaleOT

/// A parsed JSON value; integers are kept apart from other numbers so `1.5` and `true` are
/// reported as wrong types instead of being coerced.
enum JSONValue: Decodable {
    case null
    case bool(Bool)
    case int(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// The JSON type's name, for error messages.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int: "an integer"
        case .number: "a non-integer number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// What `whalesim ot ...` prints: serialized with sorted keys, non-ASCII text as UTF-8.
enum JSONOutput {
    case int(Int)
    case string(String)
    case operation(Operation)
    case object([String: JSONOutput])

    var serialized: String {
        switch self {
        case .int(let n):
            return String(n)
        case .string(let text):
            return Self.quote(text)
        case .operation(let op):
            return "["
                + op.otjs.map { element in
                    switch element {
                    case .number(let n): String(n)
                    case .text(let s): Self.quote(s)
                    }
                }.joined(separator: ",") + "]"
        case .object(let fields):
            return "{"
                + fields.keys.sorted().map { Self.quote($0) + ":" + fields[$0]!.serialized }.joined(separator: ",")
                + "}"
        }
    }

    static func quote(_ text: String) -> String { WireJSON.quoted(text) }
}
