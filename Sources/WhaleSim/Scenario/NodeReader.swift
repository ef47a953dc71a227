import Yams
import Foundation

/// Reads a composed YAML tree strictly, collecting every problem with its path instead of
/// stopping at the first: unknown keys, duplicate keys, wrong types, out-of-range values.
struct NodeReader {
    private(set) var problems: [String] = []

    mutating func problem(_ path: String, _ message: String) {
        problems.append("\(path.isEmpty ? "(top level)" : path): \(message)")
    }

    /// How a value is shown in an error: quoted text for strings, a kind name otherwise.
    static func show(_ node: Node) -> String {
        switch node {
        case .scalar(let s):
            if s.style == .singleQuoted || s.style == .doubleQuoted || node.tag.description == Tag.Name.str.rawValue {
                return String(reflecting: s.string)
            }
            return s.string.isEmpty ? "null" : s.string
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }

    /// The mapping's entries by key, after rejecting keys not in `allowed`, duplicates and
    /// non-string keys. Nil (with a problem) when the node is not a mapping.
    mutating func mapping(_ node: Node, _ path: String, allowed: [String]) -> [String: Node]? {
        guard case .mapping(let mapping) = node else {
            problem(path, "expected a mapping, got \(Self.show(node))")
            return nil
        }
        var result: [String: Node] = [:]
        for (keyNode, value) in mapping {
            guard case .scalar(let key) = keyNode else {
                problem(path, "keys must be plain strings, got \(Self.show(keyNode))")
                continue
            }
            let keyPath = path.isEmpty ? key.string : "\(path).\(key.string)"
            if !allowed.contains(key.string) {
                problem(keyPath, "unknown key (allowed: \(allowed.joined(separator: ", ")))")
                continue
            }
            if result[key.string] != nil {
                problem(keyPath, "duplicate key")
                continue
            }
            result[key.string] = value
        }
        return result
    }

    mutating func sequence(_ node: Node, _ path: String) -> [Node]? {
        guard case .sequence(let seq) = node else {
            problem(path, "expected a list, got \(Self.show(node))")
            return nil
        }
        return Array(seq)
    }

    mutating func int(_ node: Node, _ path: String, range: ClosedRange<Int>? = nil) -> Int? {
        guard case .scalar(let s) = node, node.tag.description == Tag.Name.int.rawValue,
            let value = Int(s.string.replacingOccurrences(of: "_", with: ""))
        else {
            problem(path, "expected an integer, got \(Self.show(node))")
            return nil
        }
        if let range, !range.contains(value) {
            problem(path, "\(value) is out of range \(range.lowerBound)...\(range.upperBound)")
            return nil
        }
        return value
    }

    /// A number, integer or not (`2`, `0.5`).
    mutating func double(_ node: Node, _ path: String) -> Double? {
        guard case .scalar(let s) = node,
            node.tag.description == Tag.Name.int.rawValue || node.tag.description == Tag.Name.float.rawValue,
            let value = Double(s.string.replacingOccurrences(of: "_", with: "")), value.isFinite
        else {
            problem(path, "expected a number, got \(Self.show(node))")
            return nil
        }
        return value
    }

    mutating func string(_ node: Node, _ path: String) -> String? {
        guard case .scalar(let s) = node, node.tag.description == Tag.Name.str.rawValue else {
            problem(path, "expected a string, got \(Self.show(node))")
            return nil
        }
        return s.string
    }

    /// A string that must be one of `choices` (enum-like values).
    mutating func choice<T: RawRepresentable>(_ node: Node, _ path: String, _ type: T.Type, choices: [T]) -> T?
    where T.RawValue == String {
        guard case .scalar(let s) = node else {
            problem(path, "expected one of \(choices.map(\.rawValue).joined(separator: ", ")), got \(Self.show(node))")
            return nil
        }
        guard let value = T(rawValue: s.string) else {
            problem(
                path,
                "expected one of \(choices.map(\.rawValue).joined(separator: ", ")), got \(String(reflecting: s.string))"
            )
            return nil
        }
        return value
    }
}
