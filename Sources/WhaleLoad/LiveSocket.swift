import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import WhaleTLS

/// One client websocket on the shared NIO event loops, `ws://` or `wss://` (TLS on the system's
/// OpenSSL): whole messages in go to `onText` on the connection's task; `send` queues a text (or
/// binary) frame. Pings are answered; a close from the server is echoed. Used by `whalesim
/// conform` and `whalesim bench server`; the load runner's sockets are ``LeanSocket`` and
/// ``EpollWebSocket``.
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

    enum Outgoing: Sendable {
        case text(String)
        case binary(String)
        case pong(ByteBuffer)
    }

    private let outgoing: AsyncStream<Outgoing>.Continuation
    private let state = NIOLockedValueBox<(open: Bool, ending: Ending?, waiters: [CheckedContinuation<Bool, Never>])>(
        (false, nil, []))
    fileprivate let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// `caFile`: a PEM file of certificate authorities a `wss://` server may be signed by, besides
    /// the system's.
    public init(
        url: String, headers: [(String, String)] = [], maxFrameSize: Int = 1 << 20, caFile: String? = nil,
        onText: @escaping @Sendable (String) -> Void
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: Outgoing.self)
        outgoing = continuation
        let state = state
        task.withLockedValue {
            $0 = Task {
                var ending = Ending()
                do {
                    let target = try WebSocketTarget(url)
                    let channel = try await Self.open(
                        target, headers: headers, maxFrameSize: maxFrameSize, caFile: caFile)
                    Self.opened(state)
                    let close = try await Self.converse(
                        channel, outgoing: stream, pong: continuation, maxMessage: maxFrameSize * 4, onText: onText)
                    ending.closeCode = close?.code
                    ending.reason = close?.reason
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
        _ state: NIOLockedValueBox<(open: Bool, ending: Ending?, waiters: [CheckedContinuation<Bool, Never>])>
    ) {
        let waiters = state.withLockedValue { s -> [CheckedContinuation<Bool, Never>] in
            s.open = true
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

    /// Waits until the socket has ended, whoever ended it (without closing it).
    public func waitEnded() async {
        await task.withLockedValue { $0 }?.value
    }
}
