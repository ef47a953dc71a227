import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket

/// One client websocket on the shared NIO event loops (hummingbird-websocket's client): frames
/// in go to `onText` on the connection's task; `send` queues a text (or binary) frame. Used by
/// the load runner and `whalesim bench server`.
///
/// ```swift
/// let socket = LiveSocket(url: "ws://127.0.0.1:8080/socket", headers: ["ObjectId": "acct-1"]) { text in
///     print("got", text)
/// }
/// try await socket.connected()
/// socket.send(#"{"messageId":"m1","type":"resourceConnection","data":{"resourceId":"acct-1"}}"#)
/// await socket.close()
/// ```
public final class LiveSocket: Sendable {
    /// How the socket ended: the server's close code and reason, or the error that ended it.
    public struct Ending: Sendable {
        public var closeCode: Int?
        public var reason: String?
        public var error: String?
    }

    private enum Outgoing: Sendable {
        case text(String)
        case binary(String)
    }

    private let outgoing: AsyncStream<Outgoing>.Continuation
    private let state = NIOLockedValueBox<(open: Bool, ending: Ending?, waiters: [CheckedContinuation<Bool, Never>])>(
        (false, nil, []))
    fileprivate let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    public init(
        url: String, headers: [(String, String)] = [], maxFrameSize: Int = 1 << 20, logger: Logger? = nil,
        onText: @escaping @Sendable (String) -> Void
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: Outgoing.self)
        outgoing = continuation
        var fields = HTTPFields()
        for (name, value) in headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        let configuration = WebSocketClientConfiguration(maxFrameSize: maxFrameSize, additionalHeaders: fields)
        let quiet: Logger =
            logger
            ?? {
                var l = Logger(label: "whalesim.socket"); l.logLevel = .critical; return l
            }()
        let state = state
        task.withLockedValue {
            $0 = Task {
                var ending = Ending()
                do {
                    let frame = try await WebSocketClient.connect(url: url, configuration: configuration, logger: quiet)
                    { inbound, outbound, _ in
                        Self.opened(state, true)
                        let writer = Task {
                            for await item in stream {
                                switch item {
                                case .text(let text): try? await outbound.write(.text(text))
                                case .binary(let text): try? await outbound.write(.binary(ByteBuffer(string: text)))
                                }
                            }
                            try? await outbound.close(.normalClosure, reason: nil)
                        }
                        do {
                            for try await message in inbound.messages(maxSize: maxFrameSize * 4) {
                                switch message {
                                case .text(let text): onText(text)
                                case .binary(let buffer): onText(String(buffer: buffer))
                                }
                            }
                        } catch {}
                        writer.cancel()
                    }
                    ending.closeCode = frame.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }
                    ending.reason = frame?.reason
                } catch {
                    ending.error = "\(error)"
                }
                continuation.finish()
                let waiters = state.withLockedValue { s -> [CheckedContinuation<Bool, Never>] in
                    s.ending = ending
                    defer { s.waiters = [] }
                    return s.waiters
                }
                for waiter in waiters { waiter.resume(returning: false) }
            }
        }
    }

    private static func opened(
        _ state: NIOLockedValueBox<(open: Bool, ending: Ending?, waiters: [CheckedContinuation<Bool, Never>])>,
        _ open: Bool
    ) {
        let waiters = state.withLockedValue { s -> [CheckedContinuation<Bool, Never>] in
            s.open = open
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Waits for the upgrade; false if the socket could not open (see ``ending``).
    @discardableResult
    public func connected() async -> Bool {
        await withCheckedContinuation { continuation in
            let ready = state.withLockedValue { s -> Bool? in
                if s.open { return true }
                if s.ending != nil { return false }
                s.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Waits for the upgrade at most `timeout`; on time-out the connection attempt is abandoned
    /// (a blackholed or half-open path never answers) and false is returned.
    public func connected(timeout: Duration) async -> Bool {
        let state = state
        let timer = Task {
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            let waiters = state.withLockedValue { s -> [CheckedContinuation<Bool, Never>] in
                guard !s.open, s.ending == nil else { return [] }
                s.ending = Ending(closeCode: nil, reason: nil, error: "no upgrade within \(timeout)")
                defer { s.waiters = [] }
                return s.waiters
            }
            for w in waiters { w.resume(returning: false) }
        }
        let ok = await connected()
        timer.cancel()
        if !ok { task.withLockedValue { $0 }?.cancel() }
        return ok
    }

    public func send(_ text: String, binary: Bool = false) { outgoing.yield(binary ? .binary(text) : .text(text)) }

    /// How it ended, once it has.
    public var ending: Ending? { state.withLockedValue { $0.ending } }

    /// Sends a close frame and waits for the socket to end.
    public func close() async {
        outgoing.finish()
        await task.withLockedValue { $0 }?.value
    }
}

extension LiveSocket {
    /// Waits until the socket has ended, whoever ended it (without closing it).
    public func waitEnded() async {
        await task.withLockedValue { $0 }?.value
    }
}
