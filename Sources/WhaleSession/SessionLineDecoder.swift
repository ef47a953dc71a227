import CJSONC
import Foundation

/// How a session file's lines become values: json-c (a C parser, its tree walked once into
/// ``JSONValue``) or Foundation's `JSONDecoder` (Codable). Loading a 10-minute recording of the
/// demo (1.2 M lines) took minutes through Codable, whose `JSONValue` tries each type in turn and
/// pays a thrown error for every miss; json-c is the reader's (docs/decisions/0052).
public enum SessionLineDecoder: String, Sendable, CaseIterable {
    case jsonC = "json-c"
    case foundation

    /// One reusable json-c tokener (not thread-safe: one reader at a time).
    final class Tokener {
        let tokener = json_tokener_new()
        // Strict: what Foundation refuses (single quotes, trailing commas, bare words), json-c refuses too.
        init() { json_tokener_set_flags(tokener, Int32(JSON_TOKENER_STRICT)) }
        deinit { json_tokener_free(tokener) }

        /// Why a line is not JSON, in json-c's words.
        struct NotJSON: Error { var why: String }

        /// The line's value, or why it is not JSON.
        func parse(_ bytes: ArraySlice<UInt8>) -> Result<JSONValue, NotJSON> {
            json_tokener_reset(tokener)
            let root: OpaquePointer? = bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return nil }
                return json_tokener_parse_ex(tokener, base.assumingMemoryBound(to: CChar.self), Int32(raw.count))
            }
            guard let root else {
                let error = json_tokener_get_error(tokener)
                return .failure(NotJSON(why: String(cString: json_tokener_error_desc(error))))
            }
            defer { json_object_put(root) }
            // A line must be one value and nothing after it.
            let used = Int(json_tokener_get_parse_end(tokener))
            if used < bytes.count,
                bytes[(bytes.startIndex + used)...].contains(where: { $0 != 32 && $0 != 9 && $0 != 13 })
            {
                return .failure(NotJSON(why: "text after the value"))
            }
            return .success(Self.value(root))
        }

        static func value(_ o: OpaquePointer?) -> JSONValue {
            guard let o else { return .null }
            switch json_object_get_type(o) {
            case json_type_boolean: return .bool(json_object_get_boolean(o) != 0)
            case json_type_int: return .int(Int(json_object_get_int64(o)))
            case json_type_double: return .double(json_object_get_double(o))
            case json_type_string:
                let count = Int(json_object_get_string_len(o))
                guard let pointer = json_object_get_string(o) else { return .string("") }
                return .string(String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self))
            case json_type_array:
                let n = json_object_array_length(o)
                var items: [JSONValue] = []
                items.reserveCapacity(n)
                for i in 0..<n { items.append(value(json_object_array_get_idx(o, i))) }
                return .array(items)
            case json_type_object:
                var out: [String: JSONValue] = [:]
                var it = json_object_iter_begin(o)
                var end = json_object_iter_end(o)
                while json_object_iter_equal(&it, &end) == 0 {
                    out[String(cString: json_object_iter_peek_name(&it))] = value(json_object_iter_peek_value(&it))
                    json_object_iter_next(&it)
                }
                return .object(out)
            default: return .null
            }
        }
    }
}

extension SessionEvent {
    /// An event from its line's value; the problem when a key it needs is missing or wrong.
    init(value v: JSONValue) throws(SessionFileError) {
        func bad(_ message: String) -> SessionFileError { SessionFileError(path: "", offset: nil, message) }
        guard case .object(let o) = v else { throw bad("not a JSON object") }
        func string(_ key: String) throws(SessionFileError) -> String {
            guard let value = o[key] else { throw bad("missing key \"\(key)\"") }
            guard case .string(let s) = value else { throw bad("\"\(key)\" must be a string") }
            return s
        }
        func optionalString(_ key: String) throws(SessionFileError) -> String? {
            guard let value = o[key], value != .null else { return nil }
            guard case .string(let s) = value else { throw bad("\"\(key)\" must be a string") }
            return s
        }
        func optionalInt(_ key: String) throws(SessionFileError) -> Int? {
            guard let value = o[key], value != .null else { return nil }
            guard case .int(let i) = value else { throw bad("\"\(key)\" must be an integer") }
            return i
        }
        guard let t = try optionalInt("t") else { throw bad("missing key \"t\"") }
        let targetText = try string("target")
        guard let target = Target(rawValue: targetText) else {
            throw bad("\"target\" must be whaler or salesforce, got \(targetText)")
        }
        let kindText = try string("kind")
        guard let kind = Kind(rawValue: kindText) else {
            throw bad("\"kind\" must be http, wsOpen, wsSend, wsReceive or wsClose, got \(kindText)")
        }
        var headers: [String: String]?
        if let h = o["headers"], h != .null {
            guard case .object(let fields) = h else { throw bad("\"headers\" must be an object") }
            var out: [String: String] = [:]
            for (k, value) in fields {
                guard case .string(let s) = value else { throw bad("\"headers.\(k)\" must be a string") }
                out[k] = s
            }
            headers = out
        }
        var binary: Bool?
        if let b = o["binary"], b != .null {
            guard case .bool(let flag) = b else { throw bad("\"binary\" must be true or false") }
            binary = flag
        }
        self.init(
            t: t, session: try string("session"), connection: try string("connection"), target: target, kind: kind,
            method: try optionalString("method"), path: try optionalString("path"), headers: headers,
            status: try optionalInt("status"), durationMs: try optionalInt("durationMs"),
            request: o["request"].flatMap { $0 == .null ? nil : $0 },
            response: o["response"].flatMap { $0 == .null ? nil : $0 }, data: try optionalString("data"), binary: binary
        )
    }
}
