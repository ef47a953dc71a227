import Foundation
import NIOCore
import NIOHTTP1

/// One whole HTTP request as the routes see it: NIO's aggregator has read the body already.
struct ServerRequest: Sendable {
    var method: HTTPMethod
    /// The target's path, without the query.
    var path: String
    var headers: HTTPHeaders
    var body: ByteBuffer?
    /// The query's parameters, percent-decoded; the first value of a repeated name.
    var query: [String: String]

    init(head: HTTPRequestHead, body: ByteBuffer?) {
        method = head.method
        headers = head.headers
        self.body = body
        let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = parts.first.map(String.init) ?? "/"
        query = parts.count > 1 ? Self.parameters(parts[1]) : [:]
    }

    /// A header's first value (names are case-insensitive).
    func header(_ name: String) -> String? { headers.first(name: name) }

    /// The body, at most `limit` bytes; nil past it.
    func body(limit: Int) -> Data? {
        guard let body else { return Data() }
        guard body.readableBytes <= limit else { return nil }
        return Data(body.readableBytesView)
    }

    private static func parameters(_ text: Substring) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let nameValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(nameValue[0]).removingPercentEncoding ?? String(nameValue[0])
            let raw = nameValue.count > 1 ? String(nameValue[1]) : ""
            if result[name] == nil { result[name] = raw.removingPercentEncoding ?? raw }
        }
        return result
    }
}

/// A route's answer: a status, a content type and a body.
struct ServerResponse: Sendable {
    var status: HTTPResponseStatus
    var contentType: String
    var body: ByteBuffer

    static func json(_ data: Data, status: HTTPResponseStatus = .ok) -> ServerResponse {
        ServerResponse(status: status, contentType: "application/json", body: ByteBuffer(bytes: data))
    }

    /// An error as `{"error":{"message":…}}` (what the server answered on Hummingbird, kept).
    static func error(_ status: HTTPResponseStatus, _ message: String) -> ServerResponse {
        let data =
            (try? JSONSerialization.data(
                withJSONObject: ["error": ["message": message]], options: [.withoutEscapingSlashes])) ?? Data()
        return json(data, status: status)
    }
}
