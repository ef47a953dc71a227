import Foundation
import NIOConcurrencyHelpers
import WhaleLoad
import WhaleProtocol

/// One scripted websocket of a conformance case: every frame the server sends is decoded and
/// kept in arrival order; the script takes the frames it expects (waiting up to the case's
/// timeout) and can ask what else arrived, for ordering checks and for the evidence of a failure.
final class ConformSocket: Sendable {
    /// A frame as it arrived: a message `WireCodec` decodes, or the raw text of one it refuses.
    enum Frame: Sendable, CustomStringConvertible {
        case message(ServerEnvelope)
        case undecodable(String)
        var description: String {
            switch self {
            case .message(let envelope): WireCodec.encode(envelope)
            case .undecodable(let text): "undecodable: \(text.prefix(200))"
            }
        }
    }

    private struct Inbox {
        /// Every frame, in arrival order (never removed: the evidence).
        var log: [Frame] = []
        /// Index into `log` of frames not taken yet.
        var pending: [Int] = []
    }

    /// The socket underneath: hummingbird-websocket's client, or, for a reader that must stop
    /// reading (a small kernel receive buffer, reads paused), WhaleLoad's `LeanSocket`. On
    /// `LeanSocket` for every case, 3 of 5 runs against the reference server lost a frame at the
    /// start of a connection: a refusal's `error` (the server's close could overtake it, since
    /// fixed) and, twice, the answer to a join sent at once, never seen on this client
    /// (docs/decisions/0023-conformance-suite.md).
    private enum Transport: Sendable {
        case live(LiveSocket)
        case lean(LeanSocket)
    }

    let name: String
    let timeout: Duration
    private let transport: Transport
    private let inbox: NIOLockedValueBox<Inbox>

    init(url: String, headers: [(String, String)], name: String, timeout: Duration, receiveBufferBytes: Int? = nil) {
        self.name = name
        self.timeout = timeout
        let inbox = NIOLockedValueBox(Inbox())
        self.inbox = inbox
        let onText: @Sendable (String) -> Void = { text in
            let frame: Frame
            if let envelope = try? WireCodec.decodeServer(Array(text.utf8), maxBytes: 1 << 24) {
                frame = .message(envelope)
            } else {
                frame = .undecodable(text)
            }
            inbox.withLockedValue {
                $0.log.append(frame); $0.pending.append($0.log.count - 1)
            }
        }
        if let receiveBufferBytes {
            transport = .lean(
                LeanSocket(
                    url: url, headers: headers, maxFrameSize: 1 << 24, receiveBufferBytes: receiveBufferBytes,
                    onText: onText))
        } else {
            transport = .live(LiveSocket(url: url, headers: headers, maxFrameSize: 1 << 24, onText: onText))
        }
    }

    /// Whether the upgrade succeeded within the timeout.
    func connected() async -> Bool {
        switch transport {
        case .live(let socket): await socket.connected(timeout: timeout)
        case .lean(let socket): await socket.connected(timeout: timeout)
        }
    }

    func send(_ envelope: ClientEnvelope) { sendRaw(WireCodec.encode(envelope)) }
    func sendRaw(_ text: String, binary: Bool = false) {
        switch transport {
        case .live(let socket): socket.send(text, binary: binary)
        case .lean(let socket): socket.send(text, binary: binary)
        }
    }

    /// The first frame not yet taken that `match` accepts, waiting up to `within` (default: the
    /// case's timeout); nil when none came. Frames before it stay for later takes.
    func take(within: Duration? = nil, where match: @Sendable (ServerEnvelope) -> Bool) async -> ServerEnvelope? {
        let deadline = ContinuousClock.now + (within ?? timeout)
        while true {
            let found = inbox.withLockedValue { box -> ServerEnvelope? in
                for (position, index) in box.pending.enumerated() {
                    if case .message(let envelope) = box.log[index], match(envelope) {
                        box.pending.remove(at: position)
                        return envelope
                    }
                }
                return nil
            }
            if let found { return found }
            if ContinuousClock.now >= deadline || ending != nil && !hasPending(match) { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    private func hasPending(_ match: (ServerEnvelope) -> Bool) -> Bool {
        inbox.withLockedValue { box in
            box.pending.contains {
                if case .message(let e) = box.log[$0] { return match(e) }; return false
            }
        }
    }

    /// The `error` answering `messageId` (any error when nil).
    func takeError(inReplyTo messageId: String?, within: Duration? = nil) async -> ProtocolError? {
        let envelope = await take(within: within) { envelope in
            guard case .error(let error) = envelope.message else { return false }
            return messageId == nil || error.inReplyTo == messageId
        }
        if case .error(let error)? = envelope?.message { return error }
        return nil
    }

    /// Every frame received so far, in order.
    var log: [Frame] { inbox.withLockedValue { $0.log } }

    /// Every decoded message received so far, in order.
    var messages: [ServerEnvelope] {
        log.compactMap {
            if case .message(let e) = $0 { return e }; return nil
        }
    }

    /// The last few frames, for a failure's evidence.
    func recent(_ count: Int = 4) -> String {
        let frames = log.suffix(count)
        if frames.isEmpty { return "\(name) received nothing" }
        return "\(name) last received: " + frames.map { String($0.description.prefix(240)) }.joined(separator: " | ")
    }

    /// How the server ended the socket, once it has: the close code, if any.
    var ending: LiveSocket.Ending? {
        switch transport {
        case .live(let socket): socket.ending
        case .lean(let socket): socket.ending
        }
    }

    /// Waits until the socket has ended (up to `within`); its close code, nil when still open or none.
    func closeCode(within: Duration? = nil) async -> (ended: Bool, code: Int?) {
        let deadline = ContinuousClock.now + (within ?? timeout)
        while ContinuousClock.now < deadline {
            if let ending { return (true, ending.closeCode) }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return (false, nil)
    }

    /// Stops reading (the server's frames back up into its own buffers), and reads on again.
    func pauseReading() { if case .lean(let socket) = transport { socket.pauseReading() } }
    func resumeReading() { if case .lean(let socket) = transport { socket.resumeReading() } }

    func close() async {
        switch transport {
        case .live(let socket): await socket.close()
        case .lean(let socket): await socket.close()
        }
    }
}
