import Foundation

/// Finds which virtual client a connection belongs to from the first line of its first HTTP
/// request (`GET /socket?...&whalesim-client=c12 HTTP/1.1`). It only looks: the proxy forwards
/// the bytes unchanged.
struct ClientTag {
    /// A request line longer than this is not one of ours: give up rather than buffer forever.
    static let maxLineBytes = 8192

    private var line: [UInt8] = []
    /// Set once the first line is complete (or it is clearly not an HTTP request line).
    private(set) var done = false
    private(set) var client: String?

    /// Feeds the connection's next bytes; returns true once the tag is decided.
    @discardableResult
    mutating func feed(_ bytes: some Sequence<UInt8>) -> Bool {
        guard !done else { return true }
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                client = Self.client(inRequestLine: String(decoding: line, as: UTF8.self))
                return finish()
            }
            line.append(byte)
            if line.count > Self.maxLineBytes { return finish() }
        }
        return false
    }

    private mutating func finish() -> Bool {
        done = true
        line = []
        return true
    }

    /// `ID` from `METHOD /path?a=b&whalesim-client=ID HTTP/1.x`; nil for anything else.
    static func client(inRequestLine line: String) -> String? {
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/"), !parts[0].isEmpty,
            let q = parts[1].firstIndex(of: "?")
        else { return nil }
        let query = parts[1][parts[1].index(after: q)...].prefix { $0 != "#" }
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard kv.count == 2, kv[0] == "whalesim-client", !kv[1].isEmpty else { continue }
            return String(kv[1]).removingPercentEncoding ?? String(kv[1])
        }
        return nil
    }
}
