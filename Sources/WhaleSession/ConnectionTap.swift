/// One proxied TCP connection read both ways: HTTP requests paired with their responses, and
/// after a `101` the websocket's messages each way. Fed in the order the bytes passed; each
/// complete exchange becomes a ``SessionEvent`` through the shared ``SessionTracker``.
public struct ConnectionTap: Sendable {
    public let connection: String
    public let target: SessionEvent.Target
    private var requests = HTTPStreamParser(isRequest: true)
    private var responses = HTTPStreamParser(isRequest: false)
    private var pending: [(message: HTTPStreamParser.Message, t: Int)] = []
    private var clientFrames: WebSocketFrameParser?
    private var serverFrames: WebSocketFrameParser?
    private var upgradeRequested = false
    private var held: [UInt8] = []
    private var closeRecorded = false
    /// Why part of the connection could not be read (bytes that are not HTTP or websocket
    /// frames): the proxy still forwards them; the recording misses them, and says so.
    public var broken: String? {
        requests.broken?.reason ?? responses.broken?.reason ?? clientFrames?.broken ?? serverFrames?.broken
    }

    public init(connection: String, target: SessionEvent.Target) {
        self.connection = connection
        self.target = target
    }

    static func isUpgrade(_ m: HTTPStreamParser.Message) -> Bool {
        m.header("upgrade")?.lowercased() == "websocket"
    }

    public mutating func fromClient(_ bytes: some Collection<UInt8>, t: Int, tracker: inout SessionTracker)
        -> [SessionEvent]
    {
        if clientFrames != nil { return frames(bytes, fromClient: true, t: t, tracker: &tracker) }
        if upgradeRequested {
            held.append(contentsOf: bytes)
            return []
        }
        for m in requests.feed(bytes, stopAfter: Self.isUpgrade) {
            pending.append((m, t))
            responses.pendingMethods.append(m.startLine[0])
            if Self.isUpgrade(m) {
                upgradeRequested = true
                held = requests.takeRest()
            }
        }
        return []
    }

    public mutating func fromServer(_ bytes: some Collection<UInt8>, t: Int, tracker: inout SessionTracker)
        -> [SessionEvent]
    {
        if serverFrames != nil { return frames(bytes, fromClient: false, t: t, tracker: &tracker) }
        var out: [SessionEvent] = []
        for r in responses.feed(bytes, stopAfter: { $0.startLine.count > 1 && $0.startLine[1] == "101" }) {
            guard !pending.isEmpty else { continue }
            let (request, started) = pending.removeFirst()
            let status = Int(r.startLine[1]) ?? 0
            let method = request.startLine[0]
            let path = request.startLine.count > 1 ? request.startLine[1] : "/"
            if status == 101 {
                out.append(
                    tracker.wsOpen(t: t, connection: connection, target: target, path: path, headers: request.headers))
                clientFrames = WebSocketFrameParser()
                serverFrames = WebSocketFrameParser()
                let rest = responses.takeRest()
                let early = held
                held = []
                out += frames(early, fromClient: true, t: t, tracker: &tracker)
                out += frames(rest, fromClient: false, t: t, tracker: &tracker)
                return out
            }
            out.append(
                tracker.http(
                    t: t, connection: connection, target: target, method: method, path: path, headers: request.headers,
                    requestBody: request.body, status: status, responseHeaders: r.headers, responseBody: r.body,
                    durationMs: max(0, t - started)))
            if upgradeRequested {
                // The server refused the upgrade: what the client sent after it is HTTP again.
                upgradeRequested = false
                let again = held
                held = []
                _ = fromClient(again, t: t, tracker: &tracker)
            }
        }
        return out
    }

    /// The connection ended: an open websocket is closed.
    public mutating func closed(t: Int, tracker: inout SessionTracker) -> [SessionEvent] {
        guard clientFrames != nil, !closeRecorded else { return [] }
        closeRecorded = true
        return [tracker.wsClose(t: t, connection: connection, target: target)]
    }

    private mutating func frames(
        _ bytes: some Collection<UInt8>, fromClient: Bool, t: Int, tracker: inout SessionTracker
    ) -> [SessionEvent] {
        let messages = fromClient ? clientFrames!.feed(bytes) : serverFrames!.feed(bytes)
        var out: [SessionEvent] = []
        for m in messages {
            switch m.kind {
            case .close:
                if !closeRecorded {
                    closeRecorded = true
                    out.append(tracker.wsClose(t: t, connection: connection, target: target))
                }
            case .text, .binary:
                out.append(
                    tracker.wsMessage(
                        t: t, connection: connection, target: target, fromClient: fromClient, payload: m.payload,
                        binary: m.kind == .binary || m.compressed))
            }
        }
        return out
    }
}
