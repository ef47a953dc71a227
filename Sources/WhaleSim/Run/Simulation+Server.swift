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
                guard let c = index(of: client) else { continue }
                if let delivery = network.send(client: c, down: envelope, now: clock.now) {
                    queue.schedule(.deliver(delivery), at: delivery.time)
                }
                checkBackpressure(c)
            case .persist(let entry):
                guard let d = documentNumber(entry.resourceId) else { continue }
                persisted[d].append(entry)
                write(entry, document: d)
                if entry.op == nil, entry.revision != serverRevisions[d] {
                    record(
                        .serverRevision(
                            document: d, from: serverRevisions[d], to: entry.revision, cause: "history reset"))
                    serverRevisions[d] = entry.revision
                }
            case .applied(let resourceId, let revision, let op, let opId, let author):
                guard let d = documentNumber(resourceId) else { continue }
                record(
                    .serverApply(
                        document: d, client: index(of: author) ?? -1, opId: opId ?? messageId, op: op,
                        revision: revision))
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

    /// The server process dies: every connection breaks and its memory is gone. It starts again
    /// after `restartAfter` ticks (nil: when a script step says).
    mutating func crashServer(restartAfter: Int?) {
        guard server != nil else { return }
        counts.serverRestarts += 1
        record(.serverCrash)
        server = nil
        model?.server = nil
        for c in sessions.indices where network.isConnected(c) {
            network.disconnect(c)
            record(.disconnect(client: c, cause: "server crash"))
            clientHandle(c, .disconnected)
            modelClientHandle(c, .disconnected)
        }
        if let restartAfter { queue.schedule(.restartServer, at: clock.now + restartAfter) }
    }

    /// The cause of a server revision that a restart set back (acknowledged ops were not persisted).
    static let restartCause = "restart from persisted state"

    /// A new server process from the persisted documents; clients reconnect shortly after.
    /// `reconnectClients` off: a script's clients connect at their own steps.
    mutating func restartServer(reconnectClients: Bool = true) {
        guard server == nil else { return }
        do {
            server = try CollabServer(configuration: serverConfiguration, restoring: persisted)
        } catch {
            record(.note("restart failed: \(error); starting empty"))
            server = CollabServer(configuration: serverConfiguration)
        }
        record(.serverRestart)
        modelRestart()
        for (d, id) in resourceIds.enumerated() {
            let revision = server!.documents[id]?.revision ?? 0
            if revision != serverRevisions[d] {
                record(
                    .serverRevision(
                        document: d, from: serverRevisions[d], to: revision, cause: Self.restartCause))
                serverRevisions[d] = revision
            }
        }
        guard reconnectClients else { return }
        for c in sessions.indices {
            queue.schedule(.connect(client: c), at: clock.now + 1 + clientRandom[c].int(in: 0...20))
        }
    }

    /// The index of a simulated client from its id (`c07` → 7), without hashing the string.
    func index(of client: ClientID) -> Int? {
        guard let n = trailingNumber(client.rawValue, after: 1), n < clientIds.count, clientIds[n] == client else {
            return clientIndex[client]
        }
        return n
    }

    /// The index of a simulated document from its resource id (`note-03` → 3).
    func documentNumber(_ resourceId: String) -> Int? {
        guard let n = trailingNumber(resourceId, after: 5), n < resourceIds.count, resourceIds[n] == resourceId else {
            return documentIndex[resourceId]
        }
        return n
    }
}

/// The decimal number after the first `prefix` UTF-8 bytes of `s`, or nil.
@inline(__always) func trailingNumber(_ s: String, after prefix: Int) -> Int? {
    var n = 0
    var digits = 0
    for (i, b) in s.utf8.enumerated() where i >= prefix {
        guard b >= 48, b <= 57 else { return nil }
        n = n * 10 + Int(b - 48)
        digits += 1
    }
    return digits > 0 ? n : nil
}
