import Foundation
import WhaleProtocol

extension ModelRecord {
    /// The record as the JSON a protocol-2 `resourceUpdate` carries: GraphQL field names, keys
    /// sorted, absent optionals left out (deterministic: the same record gives the same bytes).
    public var wireJSON: WireJSON {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            switch self {
            case .organization(let r): data = try encoder.encode(r)
            case .user(let r): data = try encoder.encode(r)
            case .account(let r): data = try encoder.encode(r)
            case .contact(let r): data = try encoder.encode(r)
            case .task(let r): data = try encoder.encode(r)
            case .assignment(let r): data = try encoder.encode(r)
            case .tracking(let r): data = try encoder.encode(r)
            }
            return try WireJSON.parse(Array(data))
        } catch {
            preconditionFailure("a model record always encodes: \(error)")
        }
    }

    /// The canonical text of the record (its `wireJSON`), what checkers compare.
    public var canonicalText: String { wireJSON.serialized }

    /// The "key json" line the history and the model checker compare.
    public var line: String { "\(key) \(canonicalText)" }

    /// Reads a carried record back; nil when the type is unknown or the JSON does not fit it.
    public init?(recordType: String, json: WireJSON) {
        let data = Data(json.serialized.utf8)
        let decoder = JSONDecoder()
        switch recordType {
        case "organization":
            guard let r = try? decoder.decode(Organization.self, from: data) else { return nil };
            self = .organization(r)
        case "user": guard let r = try? decoder.decode(User.self, from: data) else { return nil }; self = .user(r)
        case "account":
            guard let r = try? decoder.decode(Account.self, from: data) else { return nil }; self = .account(r)
        case "contact":
            guard let r = try? decoder.decode(Contact.self, from: data) else { return nil }; self = .contact(r)
        case "task": guard let r = try? decoder.decode(TaskItem.self, from: data) else { return nil }; self = .task(r)
        case "assignment":
            guard let r = try? decoder.decode(AssignmentEntry.self, from: data) else { return nil };
            self = .assignment(r)
        case "tracking":
            guard let r = try? decoder.decode(Tracking.self, from: data) else { return nil }; self = .tracking(r)
        default: return nil
        }
    }
}
