import WhaleOT
import WhaleProtocol

extension Simulation {
    /// Feeds one event to client `c`'s session and carries out what it asks.
    mutating func clientHandle(_ c: Int, _ event: ClientSession.Event) {
        let before = sessions[c].revision
        let actions = sessions[c].handle(event)
        for action in actions { perform(action, client: c) }
        if sessions[c].revision != before { record(.clientRevision(client: c, revision: sessions[c].revision)) }
    }

    mutating func perform(_ action: ClientSession.Action, client c: Int) {
        switch action {
        case .send(let envelope):
            if case .docChange(let change) = envelope.message {
                record(.send(client: c, opId: change.opId ?? envelope.messageId, op: change.op, revision: change.rev))
            }
            if let delivery = network.send(.up, client: c, up: envelope, now: clock.now) {
                queue.schedule(.deliver(delivery), at: delivery.time)
            }
        case .editApplied(let opId, let op):
            if lastInvoked[c] != opId {
                lastInvoked[c] = opId
                counts.invoked += 1
                record(.invoke(client: c, opId: opId, op: op, baseRevision: sessions[c].revision))
            }
        case .acknowledged(let opId, let revision):
            counts.acknowledged += 1
            record(.ack(client: c, opId: opId, revision: revision))
        case .remoteApplied, .joined:
            break  // revisions are recorded by clientHandle
        case .opsDropped(let opIds, let reason):
            for id in opIds {
                counts.failed += 1
                record(.failed(client: c, opId: id, code: "dropped: \(reason)"))
            }
        case .failed(let message):
            record(.error(client: c, code: "client", message: message))
        case .diverged(let message):
            record(.error(client: c, code: History.divergedCode, message: message))
        }
    }

    /// A message reaches its end of a link.
    mutating func deliver(_ delivery: SimNetwork<ClientEnvelope, ServerEnvelope>.Delivery) {
        if scriptState != nil, holdForScript(delivery) { return }
        deliverNow(delivery)
        if scriptState != nil, delivery.direction == .up { pumpAllHeld() }
    }

    /// Carries out a delivery (a script's hold already passed).
    mutating func deliverNow(_ delivery: SimNetwork<ClientEnvelope, ServerEnvelope>.Delivery) {
        let c = delivery.client
        switch delivery.direction {
        case .up:
            guard let envelope = network.receiveUp(delivery), server != nil else { return }
            if case .cursorUpdate(_, let rev, let selection) = envelope.message {
                record(.cursorDelivered(client: c, revision: rev, selection: selection))
            }
            serverHandle(.received(clientIds[c], envelope), messageId: envelope.messageId)
        case .down:
            guard let envelope = network.receiveDown(delivery) else { return }
            if model != nil, envelope.isForTheModel {
                modelClientHandle(c, .received(envelope))
            } else {
                clientHandle(c, .received(envelope))
            }
            checkBackpressure(c)
        }
    }

    /// (Re)opens client `c`'s connection; retried later while the server is down.
    mutating func connect(_ c: Int) {
        guard !network.isConnected(c) else { return }
        guard server != nil else {
            queue.schedule(.connect(client: c), at: clock.now + 10 + clientRandom[c].int(in: 0...20))
            return
        }
        network.connect(c)
        record(.connect(client: c))
        serverHandle(.connected(clientIds[c], userId: sessions[c].userId, protocolVersion: version), messageId: "")
        clientHandle(c, .connected)
        modelConnect(c)
    }

    /// Breaks client `c`'s connection (both sides notice); it reconnects after `reconnectAfter` ticks.
    mutating func disconnect(_ c: Int, cause: String, reconnectAfter: Int?) {
        guard network.isConnected(c) else { return }
        counts.disconnects += 1
        network.disconnect(c)
        record(.disconnect(client: c, cause: cause))
        clientHandle(c, .disconnected)
        if server != nil { serverHandle(.disconnected(clientIds[c]), messageId: "") }
        modelDisconnect(c)
        if let reconnectAfter { queue.schedule(.connect(client: c), at: clock.now + reconnectAfter) }
    }
}
