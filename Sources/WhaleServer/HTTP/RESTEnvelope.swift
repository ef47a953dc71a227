import Foundation
import NIOHTTP1

/// The original's REST envelope: `{"code","message","hasError","data"}`, sent with HTTP 200 even
/// for errors (as the original does), except the 403 of a missing or bad token.
struct RESTEnvelope {
    var code: Int
    var message: String
    var hasError: Bool
    var data: [String: Any]?
    var status: HTTPResponseStatus = .ok

    static func error(_ code: Int, _ message: String, status: HTTPResponseStatus = .ok) -> RESTEnvelope {
        RESTEnvelope(code: code, message: message, hasError: true, data: [:], status: status)
    }

    var response: ServerResponse {
        var object: [String: Any] = ["code": code, "message": message, "hasError": hasError]
        if let data { object["data"] = data }
        return Self.json(object, status: status)
    }

    static func json(_ object: Any, status: HTTPResponseStatus = .ok) -> ServerResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return .json(data, status: status)
    }
}
