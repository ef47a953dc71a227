import Foundation
import WhaleServer
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// The yardstick for `whalesim bench server`: a websocket server on the same stack (Hummingbird,
/// hummingbird-websocket, NIO) that does no work: `echo` sends every message back, `broadcast`
/// sends it to every socket of the same `ObjectId` group, sender included. The reference server's
/// figures are quoted as ratios of these, measured in the same run.
public final class RawBaselineServer: Sendable {
    public enum Mode: String, Sendable, CaseIterable { case echo, broadcast }

    private final class Member: Sendable {
        package let frames: AsyncStream<String>.Continuation
        package init(_ frames: AsyncStream<String>.Continuation) { self.frames = frames }
    }

    private let groups = NIOLockedValueBox([String: [ObjectIdentifier: Member]]())
    private let bound = BoundPort()
    private let group = NIOLockedValueBox<(ServiceGroup, Task<Void, any Error>)?>(nil)
    public let mode: Mode
    public var port: Int { bound.port }

    private init(mode: Mode) { self.mode = mode }

    public static func start(mode: Mode, host: String = "127.0.0.1", port: Int = 0) async throws -> RawBaselineServer {
        let server = RawBaselineServer(mode: mode)
        var logger = Logger(label: "whalesim.raw")
        logger.logLevel = .warning
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.ws("/socket") { inbound, outbound, context in
            let key = context.request.headers[HTTPField.Name("ObjectId")!] ?? "-"
            await server.serve(inbound, outbound, group: key)
        }
        let app = Application(
            router: Router(context: BasicWebSocketRequestContext.self),
            server: .http1WebSocketUpgrade(
                webSocketRouter: router, configuration: .init(ws: .init(maxFrameSize: 1 << 16))),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { [bound = server.bound] channel in bound.set(channel.localAddress?.port ?? -1) },
            logger: logger)
        let serviceGroup = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        let task = Task { [bound = server.bound] in
            do { try await serviceGroup.run() } catch { bound.fail("\(error)"); throw error }
        }
        server.group.withLockedValue { $0 = (serviceGroup, task) }
        if let failure = await server.bound.wait() { throw ServerStartError(message: "raw server: \(failure)") }
        return server
    }

    private func serve(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, group key: String) async
    {
        switch mode {
        case .echo:
            do {
                for try await message in inbound.messages(maxSize: 1 << 16) {
                    switch message {
                    case .text(let text): try await outbound.write(.text(text))
                    case .binary(let buffer): try await outbound.write(.text(String(buffer: buffer)))
                    }
                }
            } catch {}
        case .broadcast:
            let (frames, continuation) = AsyncStream.makeStream(of: String.self)
            let member = Member(continuation)
            let id = ObjectIdentifier(member)
            groups.withLockedValue { $0[key, default: [:]][id] = member }
            let writer = Task { for await text in frames { try? await outbound.write(.text(text)) } }
            do {
                for try await message in inbound.messages(maxSize: 1 << 16) {
                    let text: String
                    switch message {
                    case .text(let value): text = value
                    case .binary(let buffer): text = String(buffer: buffer)
                    }
                    for other in groups.withLockedValue({ Array(($0[key] ?? [:]).values) }) { other.frames.yield(text) }
                }
            } catch {}
            groups.withLockedValue { $0[key]?[id] = nil }
            continuation.finish()
            await writer.value
        }
    }

    /// Until SIGTERM or SIGINT (the bench runs this in its own process).
    public func waitUntilStopped() async {
        _ = try? await group.withLockedValue { $0 }?.1.value
    }

    public func stop() async {
        guard let (serviceGroup, task) = group.withLockedValue({ $0 }) else { return }
        await serviceGroup.triggerGracefulShutdown()
        _ = try? await task.value
    }
}
