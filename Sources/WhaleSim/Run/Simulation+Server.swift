import WhaleOT
import WhaleProtocol

extension Simulation {
    /// Feeds one event to the server and carries out its actions: persists first (as the
    /// server asks), then sends, in order.
    mutating func serverHandle(_ event: CollabServer.Event, messageId: String) {
        guard server != nil else { return }
        let actions = server!.handle(event)
        for action in actions {
            switch action {
            case .send(let client, let envelope):
                guard let c = clientIndex[client] else { continue }
                if let delivery = network.send(client: c, down: envelope, now: clock.now) {
                    queue.schedule(.deliver(delivery), at: delivery.time)
                }
                checkBackpressure(c)
            case .persist(let entry):
                guard let d = documentIndex[entry.resourceId] else { continue }
                persisted[d].append(entry)
                if entry.op == nil, entry.revision != serverRevisions[d] {
                    record(.serverRevision(document: d, from: serverRevisions[d], to: entry.revision, cause: "history reset"))
                    serverRevisions[d] = entry.revision
                }
            case .applied(let resourceId, let revision, let op, let opId, let author):
                guard let d = documentIndex[resourceId] else { continue }
                record(.serverApply(document: d, client: clientIndex[author] ?? -1, opId: opId ?? messageId, op: op, revision: revision))
                serverRevisions[d] = revision
            }
        }
    }

    /// Tells the server when client `c`'s incoming queue crosses the bound (or drains).
    mutating func checkBackpressure(_ c: Int) {
        guard let slow = network.backpressureChange(c) else { return }
        record(.note("\(clientIds[c]) backpressure \(slow ? "on" : "off")"))
        serverHandle(.backpressure(clientIds[c], slow: slow), messageId: "")
    }

    /// The server process dies: every connection breaks and its memory is gone.
    mutating func crashServer(restartAfter: Int) {
        guard server != nil else { return }
        counts.serverRestarts += 1
        record(.serverCrash)
        server = nil
        for c in sessions.indices where network.isConnected(c) {
            network.disconnect(c)
            record(.disconnect(client: c, cause: "server crash"))
            clientHandle(c, .disconnected)
        }
        queue.schedule(.restartServer, at: clock.now + restartAfter)
    }

    /// A new server process from the persisted documents; clients reconnect shortly after.
    mutating func restartServer() {
        guard server == nil else { return }
        do {
            server = try CollabServer(configuration: serverConfiguration, restoring: persisted)
        } catch {
            record(.note("restart failed: \(error); starting empty"))
            server = CollabServer(configuration: serverConfiguration)
        }
        record(.serverRestart)
        for (d, id) in resourceIds.enumerated() {
            let revision = server!.documents[id]?.revision ?? 0
            if revision != serverRevisions[d] {
                record(.serverRevision(document: d, from: serverRevisions[d], to: revision, cause: "restart from persisted state"))
                serverRevisions[d] = revision
            }
        }
        for c in sessions.indices {
            queue.schedule(.connect(client: c), at: clock.now + 1 + clientRandom[c].int(in: 0...20))
        }
    }
}
