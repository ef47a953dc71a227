import Foundation
import WhaleModel
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import WhaleProtocol

/// `GET /socket`: one task per connection reads frames, decodes them with ``WireCodec``, checks
/// them (size, rate, organization) and feeds the document's shard; frames to the client go
/// straight into its channel (``FrameBatch``). Nothing here decides protocol behaviour:
/// ``CollabServer`` does.
struct SocketEndpoint: Sendable {
    let server: ReferenceServer

    /// What the upgrade request said.
    struct Handshake: Sendable {
        var poolId: String?
        var token: String?
        var wantsProtocol2: Bool
        /// A client id the client proposes (`?clientId=`, protocol 2): used when well formed and
        /// free, so a load generator can tell its clients' cursors apart; else the server picks one.
        var clientId: String?

        init(request: Request) {
            let query = request.uri.queryParameters
            poolId =
                request.headers[HTTPField.Name("ObjectId")!].flatMap { $0.isEmpty ? nil : $0 }
                ?? query["objectId"].map(String.init)
            token = (request.headers[.authorization] ?? query["token"].map(String.init)).map(AuthRoutes.stripBearer)
            wantsProtocol2 = query["protocol"] == "2" || request.headers[HTTPField.Name("Whalesim-Protocol")!] == "2"
            clientId = query["clientId"].map(String.init)
        }
    }

    func serve(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel, handshake: Handshake
    ) async {
        let configuration = server.configuration
        let version: ProtocolVersion = handshake.wantsProtocol2 && !configuration.compatibility ? .v2 : .original
        var refusal: ProtocolError?
        var caller: Caller?
        do {
            let userId = try server.tokens.verify(handshake.token, now: server.now())
            caller = server.model.caller(userId: userId)
            if caller == nil { refusal = ProtocolError(.unauthorized, "the token's user does not exist") }
        } catch {
            refusal = ProtocolError(.unauthorized, error.description)
        }
        if version == .original { refusal = nil }  // the original never checks the token
        if refusal == nil, version == .v2, let poolId = handshake.poolId, let caller,
            !server.model.poolBelongs(poolId, to: caller)
        {
            refusal = ProtocolError(.forbidden, "pool \(poolId) is not in your organization")
        }
        let connection = SocketConnection(
            id: server.registry.claim(version == .v2 ? handshake.clientId : nil), protocolVersion: version,
            caller: caller, poolId: handshake.poolId,
            limiter: RateLimiter(
                rate: configuration.maxMessagesPerSecond, burst: configuration.maxMessagesPerSecond * 2,
                offByOne: configuration.faults.contains(.rateLimitOffByOne)),
            channel: channel, outbound: outbound)
        server.registry.add(connection)
        server.metrics.connections.increment()
        defer { server.metrics.connections.decrement() }
        // Position first: writability changes come from the head of the pipeline.
        let server = server
        try? await channel.pipeline.addHandler(
            WritabilityWatcher { [weak connection] in
                guard let connection else { return }
                if connection.queued < server.configuration.slowClientQueue / 2 { server.setSlow(connection, false) }
            }, position: .first)

        if let refusal {
            refuse(refusal, connection)
            // A moment before the close. Sent at once, the close lost the `error` to the conformance
            // suite's client (hummingbird-websocket's) in 1 run in 10 of its token case on a busy
            // machine: "got no error; received nothing". With the pause, none in 12. A client that
            // has read the refusal hangs up first; one that has not gets the close after it.
            try? await Task.sleep(for: .milliseconds(250))
            connection.close(.policyViolation, reason: refusal.code.rawValue)
            await connection.waitClosed()
            server.registry.remove(connection.id)
            return
        }
        server.model.joinPool(connection)
        await read(inbound, connection)
        if let index = connection.state.withLockedValue({ $0.shardIndex }) {
            server.router.shards[index].handle(.disconnected(connection.id))
            server.router.shards[index].sockets.withLockedValue { $0[connection.id] = nil }
        }
        server.model.leavePool(connection.id)
        server.registry.remove(connection.id)
        connection.finish()
        await connection.waitClosed()
    }

    private func read(_ inbound: WebSocketInboundStream, _ connection: SocketConnection) async {
        let configuration = server.configuration
        // Messages up to 4× the limit are read and refused politely; past that the socket closes.
        let hardLimit = configuration.maxMessageBytes * 4
        // `size-limit-off-by-one`: one byte less than the limit is the most let through.
        let largest = configuration.maxMessageBytes - (configuration.faults.contains(.sizeLimitOffByOne) ? 1 : 0)
        do {
            for try await message in inbound.messages(maxSize: hardLimit) {
                let bytes: [UInt8]
                switch message {
                case .text(let text): bytes = Array(text.utf8)
                case .binary(let buffer): bytes = Array(buffer: buffer)
                }
                server.metrics.messagesReceived.increment()
                if configuration.compatibility, bytes.count > WireCodec.originalMaxBytes {
                    // The original reads at most 512 bytes a message; past that it drops the socket.
                    server.metrics.error(.tooLarge)
                    connection.close(.messageTooLarge, reason: "message over \(WireCodec.originalMaxBytes) bytes")
                    return
                }
                guard bytes.count <= largest else {
                    refuse(
                        ProtocolError(
                            .tooLarge, "message of \(bytes.count) bytes; at most \(configuration.maxMessageBytes)"),
                        connection)
                    continue
                }
                if let notify = connection.limiter.take() {
                    if notify {
                        refuse(
                            ProtocolError(
                                .rateLimited,
                                "more than \(configuration.maxMessagesPerSecond) messages a second; dropped"),
                            connection)
                    }
                    server.metrics.error(.rateLimited)
                    continue
                }
                let envelope: ClientEnvelope
                do {
                    envelope = try WireCodec.decodeClient(bytes, maxBytes: configuration.maxMessageBytes)
                } catch {
                    var error = error
                    // Name the refused message when its envelope is readable, so the client can tell which.
                    if error.inReplyTo == nil, case .object(let fields)? = try? WireJSON.parse(bytes),
                        case .string(let messageId)? = fields.first(where: { $0.0 == "messageId" })?.1
                    {
                        error.inReplyTo = messageId
                    }
                    refuse(error, connection)
                    continue
                }
                route(envelope, connection)
            }
        } catch {
            // Oversize beyond the hard limit (closed with 1009), or the peer went away.
            if "\(error)".contains("messageTooLarge") {
                server.metrics.error(.tooLarge)
                connection.close(.messageTooLarge, reason: "message over \(hardLimit) bytes")
            }
            server.logger.debug("socket \(connection.id) ended: \(error)")
        }
    }

    /// Sends the message to its document's shard, moving the connection there on a join.
    private func route(_ envelope: ClientEnvelope, _ connection: SocketConnection) {
        let resourceId = envelope.message.resourceId
        // The organization check takes the model's lock, so it runs once per note and connection,
        // not once per keystroke (an account never changes organization).
        if connection.protocolVersion == .v2, let caller = connection.caller,
            connection.state.withLockedValue({ $0.checkedNote }) != resourceId
        {
            guard server.model.noteBelongs(resourceId, to: caller) else {
                refuse(
                    ProtocolError(
                        .forbidden, "note \(resourceId) is not in your organization", inReplyTo: envelope.messageId),
                    connection)
                return
            }
            connection.state.withLockedValue { $0.checkedNote = resourceId }
        }
        let index = server.router.shardIndex(for: resourceId)
        let current = connection.state.withLockedValue { $0.shardIndex }
        var joined = false
        if current != index {
            guard case .resourceConnection = envelope.message else {
                // Not joined to a document of that shard: the shard would say the same.
                refuse(
                    ProtocolError(.unknownResource, "not joined to \(resourceId)", inReplyTo: envelope.messageId),
                    connection)
                return
            }
            if let current {
                server.router.shards[current].handle(.disconnected(connection.id))
                server.router.shards[current].sockets.withLockedValue { $0[connection.id] = nil }
            }
            connection.state.withLockedValue { $0.shardIndex = index }
            server.router.shards[index].sockets.withLockedValue { $0[connection.id] = connection }
            server.router.shards[index].handle(
                .connected(
                    connection.id, userId: connection.caller?.userId ?? "anonymous",
                    protocolVersion: connection.protocolVersion))
            joined = true
        }
        server.router.shards[index].handle(.received(connection.id, envelope), receivedAt: .now)
        // A mark made before the join (a pool socket's `poolJoined`, still being written) reaches
        // the shard once the join is answered: from then on, as for a mark made after it.
        if joined { server.tellShardIfSlow(connection, shardIndex: index) }
    }

    /// Protocol 2 gets an `error`; the original protocol has none, so it gets silence.
    private func refuse(_ error: ProtocolError, _ connection: SocketConnection) {
        server.metrics.error(error.code)
        guard connection.protocolVersion == .v2 else { return }
        let envelope = ServerEnvelope(
            senderId: server.serverId, messageId: "e:" + (error.inReplyTo ?? "-"), message: .error(error))
        connection.send(WireCodec.encode(envelope), server: server)
    }
}

extension ClientMessage {
    /// The document the message is about.
    var resourceId: String {
        switch self {
        case .resourceConnection(let resourceId, _): resourceId
        case .docChange(let change): change.resourceId
        case .cursorUpdate(let resourceId, _, _): resourceId
        }
    }
}
