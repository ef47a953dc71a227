import Foundation

/// An HTTP/1.1 message stream read as it passes (requests from a client, or responses from a
/// server): start line, headers, a body by `Content-Length` or chunked. Bytes are fed as they
/// arrive; complete messages come out. Nothing is changed: the proxy forwards the bytes itself.
public struct HTTPStreamParser: Sendable {
    public struct Message: Sendable, Equatable {
        /// `POST /query HTTP/1.1` or `HTTP/1.1 200 OK`, split on spaces (at most three parts).
        public var startLine: [String]
        public var headers: [(String, String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        public static func == (a: Message, b: Message) -> Bool {
            a.startLine == b.startLine && a.body == b.body
                && a.headers.map { [$0.0, $0.1] } == b.headers.map { [$0.0, $0.1] }
        }
    }

    /// Bytes the stream does not parse as HTTP (a broken message): it stops and says so.
    public struct Broken: Error, Sendable, Equatable { public var reason: String }

    public let isRequest: Bool
    private var buffer: [UInt8] = []
    private var head: Message?
    private var remaining = 0
    private var chunked = false
    private var chunkBody: [UInt8] = []
    /// Set by the owner: a response to a `HEAD` request has no body (FIFO of the requests' methods).
    public var pendingMethods: [String] = []
    public private(set) var broken: Broken?

    public init(isRequest: Bool) { self.isRequest = isRequest }

    /// Bytes past the last message (after an upgrade they are the websocket's), taken out.
    public mutating func takeRest() -> [UInt8] {
        defer { buffer = [] }
        return buffer
    }

    /// Feeds bytes; returns the messages they complete. `stopAfter` ends parsing after a message
    /// for which it says true (an upgrade request or a `101`), leaving the rest in the buffer.
    public mutating func feed(_ bytes: some Collection<UInt8>, stopAfter: (Message) -> Bool = { _ in false })
        -> [Message]
    {
        guard broken == nil else { return [] }
        buffer.append(contentsOf: bytes)
        var out: [Message] = []
        while true {
            if head == nil {
                guard let end = Self.headEnd(buffer) else {
                    if buffer.count > 1 << 20 { broken = Broken(reason: "a header block over 1 MiB") }
                    return out
                }
                guard let h = Self.parseHead(buffer[..<end]) else {
                    broken = Broken(reason: "not an HTTP/1.1 \(isRequest ? "request" : "response") head")
                    return out
                }
                buffer.removeFirst(end + 4)
                head = h
                chunked = h.header("transfer-encoding")?.lowercased().contains("chunked") == true
                remaining = Int(h.header("content-length") ?? "") ?? 0
                chunkBody = []
                if !isRequest {
                    let method = pendingMethods.isEmpty ? "GET" : pendingMethods.removeFirst()
                    let status = Int(h.startLine.count > 1 ? h.startLine[1] : "") ?? 0
                    if method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status) {
                        remaining = 0
                        chunked = false
                    }
                }
            }
            if chunked {
                // size CRLF data CRLF … 0 CRLF (trailers) CRLF
                guard let line = Self.lineEnd(buffer) else { return out }
                let sizeText = String(decoding: buffer[..<line], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                    broken = Broken(reason: "a chunk size that is not hexadecimal")
                    return out
                }
                if size == 0 {
                    // The last chunk, then trailers (usually none) up to an empty line.
                    let after = line + 2
                    let end: Int
                    if buffer.count >= after + 2, buffer[after] == 13, buffer[after + 1] == 10 {
                        end = after + 2
                    } else if let trailers = Self.headEnd(Array(buffer[after...])) {
                        end = after + trailers + 4
                    } else {
                        return out
                    }
                    buffer.removeFirst(end)
                    head!.body = chunkBody
                } else {
                    guard buffer.count >= line + 2 + size + 2 else { return out }
                    chunkBody.append(contentsOf: buffer[(line + 2)..<(line + 2 + size)])
                    buffer.removeFirst(line + 2 + size + 2)
                    continue
                }
            } else {
                guard buffer.count >= remaining else { return out }
                head!.body = Array(buffer[..<remaining])
                buffer.removeFirst(remaining)
            }
            let message = head!
            head = nil
            out.append(message)
            if stopAfter(message) { return out }
        }
    }

    static func headEnd(_ b: [UInt8]) -> Int? {
        guard b.count >= 4 else { return nil }
        var i = 0
        while i + 3 < b.count {
            if b[i] == 13, b[i + 1] == 10, b[i + 2] == 13, b[i + 3] == 10 { return i }
            i += 1
        }
        return nil
    }

    static func lineEnd(_ b: [UInt8]) -> Int? {
        var i = 0
        while i + 1 < b.count {
            if b[i] == 13, b[i + 1] == 10 { return i }
            i += 1
        }
        return nil
    }

    static func parseHead(_ bytes: ArraySlice<UInt8>) -> Message? {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        guard !lines.isEmpty else { return nil }
        let start = lines.removeFirst().split(separator: " ", maxSplits: 2).map(String.init)
        guard start.count >= 2, start[0].hasPrefix("HTTP/") || start.count == 3 && start[2].hasPrefix("HTTP/") else {
            return nil
        }
        var headers: [(String, String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return Message(startLine: start, headers: headers, body: [])
    }
}
