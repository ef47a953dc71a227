/// Where the telemetry endpoint listens, from `--listen`: `HOST:PORT`, `[IPv6]:PORT`, `:PORT`
/// or `PORT` (the last two on loopback, 127.0.0.1). Port 0 lets the system pick one.
///
/// ```swift
/// try ListenAddress.parse("9464")           // 127.0.0.1:9464, loopback
/// try ListenAddress.parse("0.0.0.0:9464")   // every interface, as asked
/// ```
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    /// The host used when none is given: loopback, so a run's figures are not offered to the
    /// network unless someone asks for it.
    public static let defaultHost = "127.0.0.1"

    public init(host: String = ListenAddress.defaultHost, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `--listen`'s value, or throws ``TelemetryListenError/malformed(_:reason:)``.
    public static func parse(_ text: String) throws(TelemetryListenError) -> ListenAddress {
        let given = text.trimmedSpaces
        func bad(_ reason: String) -> TelemetryListenError { .malformed(text, reason: reason) }
        guard !given.isEmpty else { throw bad("empty; give HOST:PORT, :PORT or PORT") }
        guard !given.contains("://") else { throw bad("give HOST:PORT, not a URL") }
        var host = defaultHost
        let portText: Substring
        if given.hasPrefix("[") {
            guard let close = given.firstIndex(of: "]") else { throw bad("an IPv6 address needs its closing ]") }
            host = String(given[given.index(after: given.startIndex)..<close])
            let rest = given[given.index(after: close)...]
            guard rest.hasPrefix(":") else { throw bad("no :PORT after the IPv6 address") }
            portText = rest.dropFirst()
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw bad("'\(host)' is not an IPv6 address")
            }
        } else if let colon = given.lastIndex(of: ":") {
            let hostPart = given[..<colon]
            guard !hostPart.contains(":") else { throw bad("an IPv6 address goes in brackets: [::1]:PORT") }
            if !hostPart.isEmpty { host = String(hostPart) }
            portText = given[given.index(after: colon)...]
        } else {
            portText = Substring(given)
        }
        guard host.allSatisfy({ $0.isLetter || $0.isNumber || "-._:".contains($0) }) else {
            throw bad("'\(host)' is not a host name or address")
        }
        guard !portText.isEmpty else { throw bad("no port; give HOST:PORT (port 0 picks a free one)") }
        guard portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber), let port = Int(portText) else {
            throw bad("'\(portText)' is not a port number")
        }
        guard (0...65535).contains(port) else { throw bad("port \(port) is out of range 0...65535") }
        return ListenAddress(host: host, port: port)
    }

    /// Whether only this machine can reach the address.
    public var isLoopback: Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

extension String {
    fileprivate var trimmedSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
