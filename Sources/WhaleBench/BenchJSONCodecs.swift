import CJSONC
import Foundation
import WhaleOT
import WhaleProtocol

/// The hot path of the protocol codec: decode a client's `docChange`, encode the server's
/// `docChangeReturnOps` reply (PROTOCOL.md §2–§3). Every codec turns `n`/`s` into a validated
/// canonical `Operation` and encodes the reply from it, as the server does.
package enum BenchJSONMessage {
    package static let docChange =
        #"{"messageId":"c1:17","type":"docChange","data":{"resourceId":"acc-42","rev":120,"n":[6,0,4],"s":["","w",""],"opId":"c1:17"}}"#
    package static let senderId = "srv-1"

    /// A key-order-independent form of a reply, to check that every codec says the same.
    package static func canonical(_ data: Data) throws -> String {
        let object = try JSONSerialization.jsonObject(with: data)
        return String(
            decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}

/// One implementation of decode `docChange` → encode `docChangeReturnOps`.
package protocol BenchJSONCodec {
    func roundTrip(_ message: Data) throws -> Data
}

package struct BenchJSONError: Error { var what: String }

/// (a) Foundation's JSONSerialization with `[String: Any]`.
package struct BenchJSONSerialization: BenchJSONCodec {
    package init() {}
    package func roundTrip(_ message: Data) throws -> Data {
        guard let root = try JSONSerialization.jsonObject(with: message) as? [String: Any],
            let messageId = root["messageId"] as? String, root["type"] as? String == "docChange",
            let data = root["data"] as? [String: Any], let resourceId = data["resourceId"] as? String,
            let rev = data["rev"] as? Int, let n = data["n"] as? [Int], let s = data["s"] as? [String],
            data["opId"] as? String != nil
        else { throw BenchJSONError(what: "not a docChange") }
        _ = rev
        let wire = try WireOperation(n: n, s: s).operation().wire
        let reply: [String: Any] = [
            "senderId": BenchJSONMessage.senderId, "messageId": messageId, "type": "docChangeReturnOps",
            "data": ["resourceId": resourceId, "n": wire.n, "s": wire.s],
        ]
        return try JSONSerialization.data(withJSONObject: reply)
    }
}

/// (b) JSONDecoder / JSONEncoder with Codable structs (decoder and encoder reused).
package final class BenchJSONCodable: BenchJSONCodec {
    package init() {}
    package struct DocChange: Codable {
        package struct Payload: Codable {
            package var resourceId: String; var rev: Int; var n: [Int]; var s: [String]; var opId: String?
        }
        package var messageId: String; var type: String; var data: Payload
    }
    package struct ReturnOps: Codable {
        package struct Payload: Codable { var resourceId: String; var n: [Int]; var s: [String] }
        package var senderId: String; var messageId: String; var type: String; var data: Payload
    }
    package let decoder = JSONDecoder()
    package let encoder = JSONEncoder()

    package func roundTrip(_ message: Data) throws -> Data {
        let change = try decoder.decode(DocChange.self, from: message)
        guard change.type == "docChange" else { throw BenchJSONError(what: "not a docChange") }
        let wire = try WireOperation(n: change.data.n, s: change.data.s).operation().wire
        let reply = ReturnOps(
            senderId: BenchJSONMessage.senderId, messageId: change.messageId, type: "docChangeReturnOps",
            data: .init(resourceId: change.data.resourceId, n: wire.n, s: wire.s))
        return try encoder.encode(reply)
    }
}

/// (c) json-c through the `CJSONC` system library target, after `JSONUnicode.validate`. One
/// tokener is reused (reset per message), as a connection's codec would.
package final class BenchJSONC: BenchJSONCodec {
    package init() {}
    private let tokener = json_tokener_new()
    deinit { json_tokener_free(tokener) }

    package func roundTrip(_ message: Data) throws -> Data {
        // json-c would turn a lone surrogate escape into U+FFFD and pass invalid UTF-8 through;
        // Foundation's codecs reject both, so for a fair comparison this one checks first too.
        try JSONUnicode.validate(message)
        json_tokener_reset(tokener)
        let root: OpaquePointer? = message.withUnsafeBytes { raw in
            json_tokener_parse_ex(tokener, raw.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(raw.count))
        }
        guard let root else { throw BenchJSONError(what: "not JSON") }
        defer { json_object_put(root) }
        func field(_ object: OpaquePointer?, _ key: String) -> OpaquePointer? {
            var value: OpaquePointer?
            return json_object_object_get_ex(object, key, &value) != 0 ? value : nil
        }
        func string(_ object: OpaquePointer?) -> String? {
            guard let object, json_object_is_type(object, json_type_string) != 0 else { return nil }
            return String(cString: json_object_get_string(object))
        }
        guard let messageId = string(field(root, "messageId")), string(field(root, "type")) == "docChange",
            let data = field(root, "data"), let resourceId = string(field(data, "resourceId")),
            let rev = field(data, "rev"), json_object_is_type(rev, json_type_int) != 0,
            let n = field(data, "n"), json_object_is_type(n, json_type_array) != 0,
            let s = field(data, "s"), json_object_is_type(s, json_type_array) != 0,
            json_object_array_length(n) == json_object_array_length(s)
        else { throw BenchJSONError(what: "not a docChange") }
        var ns: [Int] = [], ss: [String] = []
        let count = json_object_array_length(n)
        for i in 0..<count {
            let ni = json_object_array_get_idx(n, i), si = json_object_array_get_idx(s, i)
            guard json_object_is_type(ni, json_type_int) != 0, let text = string(si) else {
                throw BenchJSONError(what: "bad n/s")
            }
            ns.append(Int(json_object_get_int64(ni)))
            ss.append(text)
        }
        let wire = try WireOperation(n: ns, s: ss).operation().wire
        // Encode the reply from the decoded Swift values, as the protocol codec would.
        let reply = json_object_new_object()
        defer { json_object_put(reply) }
        json_object_object_add(reply, "senderId", json_object_new_string(BenchJSONMessage.senderId))
        json_object_object_add(reply, "messageId", json_object_new_string(messageId))
        json_object_object_add(reply, "type", json_object_new_string("docChangeReturnOps"))
        let payload = json_object_new_object()
        json_object_object_add(payload, "resourceId", json_object_new_string(resourceId))
        let nArray = json_object_new_array_ext(Int32(wire.n.count)),
            sArray = json_object_new_array_ext(Int32(wire.s.count))
        for value in wire.n { json_object_array_add(nArray, json_object_new_int64(Int64(value))) }
        for value in wire.s { json_object_array_add(sArray, json_object_new_string(value)) }
        json_object_object_add(payload, "n", nArray)
        json_object_object_add(payload, "s", sArray)
        json_object_object_add(reply, "data", payload)
        var length = 0
        guard
            let text = json_object_to_json_string_length(
                reply, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &length)
        else {
            throw BenchJSONError(what: "json-c could not encode")
        }
        return Data(bytes: text, count: length)
    }
}

/// (d) The lead's `WhaleProtocol.WireCodec`: its own strict JSON parser (`WireJSON`, which checks
/// UTF-8 and surrogates itself) straight into typed messages.
package struct BenchJSONWireCodec: BenchJSONCodec {
    package init() {}
    package func roundTrip(_ message: Data) throws -> Data {
        let envelope = try WireCodec.decodeClient(message)
        guard case .docChange(let change) = envelope.message else { throw BenchJSONError(what: "not a docChange") }
        let reply = ServerEnvelope(
            senderId: BenchJSONMessage.senderId, messageId: envelope.messageId,
            message: .docChangeReturnOps(resourceId: change.resourceId, op: change.op, opId: nil))
        return Data(WireCodec.encode(reply).utf8)
    }
}
