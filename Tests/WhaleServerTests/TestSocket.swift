import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import NIOConcurrencyHelpers
import WhaleProtocol

/// A websocket to the server for tests: frames in arrive on a stream, decoded when they can be;
/// `send` writes text (or binary) frames; `closeFrame` says how the server closed it.
final class TestSocket: Sendable {
    enum Received: Sendable {
        case message(ServerEnvelope)
        case undecodable(String)
    }

    private let buffer = NIOLockedValueBox<(items: [Received], ended: Bool)>(([], false))
    private let outgoing: AsyncStream<(String, Bool)>.Continuation
    private let outgoingStream: AsyncStream<(String, Bool)>
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)
    private let closed = NIOLockedValueBox<(code: Int?, reason: String?, ended: Bool)>((nil, nil, false))

    init(url: String, headers: [String: String] = [:]) {
        (outgoingStream, outgoing) = AsyncStream.makeStream(of: (String, Bool).self)
        var fields = HTTPFields()
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { fields[HTTPField.Name(name)!] = value }
        let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20, additionalHeaders: fields)
        let buffer = buffer, outgoingStream = outgoingStream, closed = closed
        let logger: Logger = {
            var logger = Logger(label: "test-socket")
            logger.logLevel = .critical
            return logger
        }()
        task.withLockedValue {
            $0 = Task {
                let frame = try? await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) {
                    inbound, outbound, _ in
                    let writer = Task {
                        for await (text, binary) in outgoingStream {
                            if binary {
                                try? await outbound.write(.binary(ByteBuffer(string: text)))
                            } else {
                                try? await outbound.write(.text(text))
                            }
                        }
                        try? await outbound.close(.normalClosure, reason: nil)
                    }
                    do {
                        for try await message in inbound.messages(maxSize: 1 << 22) {
                            guard case .text(let text) = message else { continue }
                            if let envelope = try? WireCodec.decodeServer(Array(text.utf8)) {
                                buffer.withLockedValue { $0.items.append(.message(envelope)) }
                            } else {
                                buffer.withLockedValue { $0.items.append(.undecodable(text)) }
                            }
                        }
                    } catch {}
                    writer.cancel()
                }
                closed.withLockedValue {
                    $0 = (frame.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }, frame?.reason, true)
                }
                buffer.withLockedValue { $0.ended = true }
            }
        }
    }

    func send(_ text: String, binary: Bool = false) { outgoing.yield((text, binary)) }
    func send(_ envelope: ClientEnvelope, binary: Bool = false) { send(WireCodec.encode(envelope), binary: binary) }

    /// The next frame, or nil when the socket closed and nothing is left, or `timeout` passed.
    func next(timeout: Duration = .seconds(10)) async -> Received? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (item, ended) = buffer.withLockedValue { state -> (Received?, Bool) in
                if state.items.isEmpty { return (nil, state.ended) }
                return (state.items.removeFirst(), false)
            }
            if let item { return item }
            if ended || ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// The next decoded message that satisfies `match`, skipping others.
    func next(timeout: Duration = .seconds(10), where match: (ServerEnvelope) -> Bool) async -> ServerEnvelope? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let item = await next(timeout: deadline - ContinuousClock.now) else { return nil }
            if case .message(let envelope) = item, match(envelope) { return envelope }
        }
        return nil
    }

    /// Waits until the server closes the socket; its close code.
    func closeCode(timeout: Duration = .seconds(10)) async -> Int? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let state = closed.withLockedValue { $0 }
            if state.ended { return state.code }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    func close() {
        outgoing.finish()
    }
}
