import Foundation
import WhaleOT

/// Foundation also declares `Operation` (NSOperation); this module imports both.
typealias Operation = WhaleOT.Operation

/// Shared input decoding and output encoding for `whalesim ot ...`: reads one JSON object from
/// stdin, checks its keys and types, and turns every kind of bad input into a one-line
/// `BadInput` that names what is wrong (exit 64).
enum OTInput {
    /// Reads stdin, runs `body` on the parsed value and prints its result as one JSON line.
    static func run(command: String, _ body: (JSONValue) throws -> [String: JSONOutput]) throws {
        do {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            let value = try parse(data)
            let output = try body(value)
            print(JSONOutput.object(output).serialized)
        } catch let bad as BadInput {
            throw BadInput("ot \(command): \(bad.message)").exit()
        }
    }

    /// Parses raw input bytes, naming the first problem: not UTF-8 or a lone surrogate escape
    /// (ill-formed Unicode), not JSON.
    static func parse(_ data: Data) throws -> JSONValue {
        do {
            try JSONUnicode.validate(data)
        } catch {
            throw BadInput("\(error)")
        }
        let text = String(decoding: data, as: UTF8.self)
        if text.allSatisfy(\.isWhitespace) { throw BadInput("input is empty (expected one JSON object)") }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        } catch let DecodingError.dataCorrupted(context) {
            // JSONDecoder says only "not valid JSON"; JSONSerialization says where.
            var detail = context.debugDescription
            do { _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) } catch {
                if let located = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String { detail = located }
            }
            throw BadInput("input is not valid JSON: \(oneLine(detail))")
        } catch {
            throw BadInput("input is not valid JSON: \(oneLine("\(error)"))")
        }
    }

    /// Applies a decoded operation (already checked to span `doc`).
    static func applying(_ op: Operation, to doc: String, key: String) throws -> String {
        do { return try op.apply(to: doc) } catch { throw BadInput("\"\(key)\": \(error)") }
    }

    static func quoted(_ text: String) -> String { String(reflecting: text) }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}

/// A cursor as given: a plain offset or a selection; the output keeps the shape.
enum CursorInput {
    case offset(Int)
    case selection(Selection)
}

/// The input object with the keys a subcommand expects (all required, no others).
struct OTInputObject {
    var fields: [String: JSONValue]

    func value(_ key: String) throws -> JSONValue {
        guard let value = fields[key] else { throw BadInput("missing key \"\(key)\"") }
        return value
    }

    func string(_ key: String) throws -> String {
        guard case .string(let text) = try value(key) else {
            throw BadInput("\"\(key)\" must be a string, got \(try value(key).kind)")
        }
        return text
    }

    /// An operation in either JSON form, checked to span `document` (whose name goes in the error).
    func operation(_ key: String, spanning document: String, named documentName: String) throws -> Operation {
        let op: Operation
        do {
            switch try value(key) {
            case .array(let elements):
                op = try Operation(
                    otjs: elements.enumerated().map { index, element in
                        switch element {
                        case .int(let n): return .number(n)
                        case .string(let s): return .text(s)
                        default:
                            throw BadInput("\"\(key)\"[\(index)] must be an integer or a string, got \(element.kind)")
                        }
                    })
            case .object(let wire):
                let form = OTInputObject(fields: wire)
                try form.checkKeys(["n", "s"], context: "\"\(key)\" in wire form")
                let n = try form.array("n", of: "integers", in: key) { if case .int(let v) = $0 { v } else { nil } }
                let s = try form.array("s", of: "strings", in: key) { if case .string(let v) = $0 { v } else { nil } }
                op = try WireOperation(n: n, s: s).operation()
            case let other:
                throw BadInput("\"\(key)\" must be an ot.js array or a {\"n\", \"s\"} object, got \(other.kind)")
            }
        } catch let error as OTError {
            throw BadInput("\"\(key)\": \(error)")
        }
        let length = document.unicodeScalars.count
        guard op.baseLength == length else {
            throw BadInput(
                "\"\(key)\" does not span \(documentName): it covers \(op.baseLength) scalars, \(documentName) has \(length)"
            )
        }
        return op
    }

    func array<T>(_ key: String, of what: String, in parent: String, _ element: (JSONValue) -> T?) throws -> [T] {
        guard case .array(let items) = try value(key) else {
            throw BadInput("\"\(parent)\".\(key) must be an array of \(what), got \(try value(key).kind)")
        }
        return try items.enumerated().map { index, item in
            guard let value = element(item) else {
                throw BadInput("\"\(parent)\".\(key)[\(index)] must be one of \(what), got \(item.kind)")
            }
            return value
        }
    }

    func int(_ key: String, in parent: String) throws -> Int {
        guard case .int(let n) = try value(key) else {
            throw BadInput("\"\(parent)\".\(key) must be an integer, got \(try value(key).kind)")
        }
        return n
    }

    func cursor(_ key: String) throws -> CursorInput {
        switch try value(key) {
        case .int(let offset):
            return .offset(offset)
        case .object(let fields):
            let selection = OTInputObject(fields: fields)
            try selection.checkKeys(["anchor", "head"], context: "\"\(key)\"")
            return .selection(
                Selection(anchor: try selection.int("anchor", in: key), head: try selection.int("head", in: key)))
        case let other:
            throw BadInput("\"\(key)\" must be an integer or an {\"anchor\", \"head\"} object, got \(other.kind)")
        }
    }

    /// Every expected key present, no other key.
    func checkKeys(_ expected: [String], context: String) throws {
        let list = expected.joined(separator: ", ")
        for key in expected where fields[key] == nil {
            throw BadInput("missing key \"\(key)\" in \(context) (expected \(list))")
        }
        if let unknown = fields.keys.sorted().first(where: { !expected.contains($0) }) {
            throw BadInput("unknown key \(OTInput.quoted(unknown)) in \(context) (expected \(list))")
        }
    }
}

extension JSONValue {
    /// The input as an object with exactly `keys`.
    func object(keys: [String]) throws -> OTInputObject {
        guard case .object(let fields) = self else {
            throw BadInput("input must be a JSON object with keys \(keys.joined(separator: ", ")), got \(kind)")
        }
        let object = OTInputObject(fields: fields)
        try object.checkKeys(keys, context: "the input")
        return object
    }
}
