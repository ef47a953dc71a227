import WhaleModel
import WhaleProtocol

extension Simulation {
    // MARK: Sockets and the server process

    /// Client `c`'s socket joins its page's pool, and the page fetches.
    mutating func modelConnect(_ c: Int) {
        guard model != nil else { return }
        let client = model!.clients[c]
        modelServerHandle(
            .joinPool(clientIds[c], poolId: client.poolId, caller: model!.callers[c], protocolVersion: version), from: c
        )
        modelClientHandle(c, .joined)
        // The simulated pool join is immediate, so its protocol-2 marker (``ServerMessage/poolJoined``)
        // is the first thing on the fresh socket: handed over at once, with no delay drawn, so
        // the network's random stream and every history stay as they were without it.
        if let marker = model!.heldMarker.removeValue(forKey: c) { modelClientHandle(c, .received(marker)) }
    }

    mutating func modelDisconnect(_ c: Int) {
        guard model != nil else { return }
        if model!.server != nil { _ = model!.server!.handle(.leavePool(clientIds[c])) }
        modelClientHandle(c, .disconnected)
    }

    /// A restarted server process: the model from what it persisted, no sockets in any pool.
    mutating func modelRestart() {
        guard model != nil else { return }
        model!.server = ModelServer(configuration: model!.configuration, state: model!.store)
    }

    // MARK: The server's actions

    /// Feeds the model server; persists first, then sends the pool updates, then answers the
    /// GraphQL call of client `from` (its reply travels back on the GraphQL path).
    mutating func modelServerHandle(_ event: ModelServer.Event, from c: Int) {
        guard model?.server != nil else { return }
        let actions = model!.server!.handle(event)
        var written: [String] = []
        for action in actions {
            switch action {
            case .persist(let changes):
                for change in changes {
                    model!.store.apply(change)
                    if case .record(let record) = change { written.append(record.line) }
                }
            case .send(let client, let envelope):
                if case .poolJoined = envelope.message, let to = index(of: client) {
                    model!.heldMarker[to] = envelope  // delivered by `modelConnect`, after `.joined`
                    continue
                }
                guard let to = index(of: client), modelWithinCap() else { continue }
                if let delivery = network.send(client: to, down: envelope, now: clock.now) {
                    queue.schedule(.deliver(delivery), at: delivery.time)
                }
                checkBackpressure(to)
            case .reply(let requestId, let result):
                if case .success(let reply) = result {
                    record(.modelApply(client: c, requestId: requestId, order: reply.order, records: written.sorted()))
                }
                httpSend(ModelWorld.Call(client: c, requestId: requestId, body: .replied(result)))
            }
        }
    }

    /// False once the run's messages pass the cap (recorded once): an echo storm ends there.
    mutating func modelWithinCap() -> Bool {
        guard let m = model else { return false }
        if m.capped { return false }
        if network.sentCount + m.sent >= m.messageCap {
            model!.capped = true
            record(.note("message cap of \(m.messageCap) reached: model traffic dropped from here on"))
            return false
        }
        return true
    }

    // MARK: The GraphQL path

    /// Puts a request or a response on the GraphQL path, with its own delay.
    mutating func httpSend(_ call: ModelWorld.Call) {
        guard modelWithinCap() else { return }
        model!.sent += 1
        let delay = scenario.delay.sample(using: &model!.random)
        let slot = model!.park(call)
        queue.schedule(.http(slot: slot), at: clock.now + max(1, delay))
    }

    /// A GraphQL request reaches the server, or a response reaches its client.
    mutating func httpArrive(_ slot: Int) {
        guard let call = model?.take(slot) else { return }
        let c = call.client
        switch call.body {
        case .query(let query):
            let result: Result<PoolSnapshot, ModelError>
            if let server = model!.server {
                do { result = .success(try server.answer(query, model!.callers[c])) } catch { result = .failure(error) }
            } else {
                result = .failure(.unavailable("the server is down"))
            }
            httpSend(ModelWorld.Call(client: c, requestId: call.requestId, body: .answered(result)))
        case .mutate(let mutation):
            if model!.server == nil {
                httpSend(
                    ModelWorld.Call(
                        client: c, requestId: call.requestId,
                        body: .replied(.failure(.unavailable("the server is down")))))
            } else {
                modelServerHandle(
                    .mutate(
                        requestId: call.requestId, caller: model!.callers[c], senderID: clientIds[c].rawValue, mutation),
                    from: c)
            }
        case .answered(let result):
            modelClientHandle(c, .answered(requestId: call.requestId, result))
        case .replied(let result):
            modelClientHandle(c, .replied(requestId: call.requestId, result))
        }
    }

    // MARK: The client's actions

    mutating func modelClientHandle(_ c: Int, _ event: ModelClient.Event) {
        guard model != nil else { return }
        modelPerform(model!.clients[c].handle(event), client: c)
    }

    mutating func modelPerform(_ actions: [ModelClient.Action], client c: Int) {
        for action in actions {
            switch action {
            case .query(let requestId, let query):
                httpSend(ModelWorld.Call(client: c, requestId: requestId, body: .query(query)))
            case .mutate(let requestId, let mutation):
                record(.modelInvoke(client: c, requestId: requestId, mutation: mutation.summary))
                httpSend(ModelWorld.Call(client: c, requestId: requestId, body: .mutate(mutation)))
            case .acknowledged(let requestId, let order):
                record(.modelAck(client: c, requestId: requestId, order: order))
            case .refused(let requestId, let error):
                record(.modelFailed(client: c, requestId: requestId, code: error.code))
            case .failed(let message):
                record(.error(client: c, code: "model", message: message))
            }
        }
    }

    // MARK: The end of the run

    mutating func recordModelFinals() {
        guard let m = model else { return }
        let server = m.server ?? ModelServer(configuration: m.configuration, state: m.store)
        for (c, client) in m.clients.enumerated() {
            let page = client.page.name
            record(
                .modelClientFinal(
                    client: c, page: page, records: client.view.map(\.line), pending: client.pending.count))
            let truth = (try? server.answer(client.query, m.callers[c]).shown.map(\.line)) ?? []
            record(.modelServerFinal(client: c, page: page, records: truth))
        }
        let all = server.state.changes.compactMap { if case .record(let r) = $0 { r.line } else { nil } }
        record(.modelServerState(records: all.sorted()))
    }
}

extension Mutation {
    /// A short line for the history: the mutation and what it names.
    public var summary: String {
        switch self {
        case .saveAccounts(let inputs):
            "saveAccounts " + inputs.map { "\($0.salesforceID)→\($0.state ?? "null")" }.joined(separator: ",")
        case .saveContacts(let inputs):
            "saveContacts " + inputs.map { "\($0.salesforceID)→\($0.state ?? "null")" }.joined(separator: ",")
        case .saveTask(let t):
            "saveTask \(t.id) done=\(t.done) assignedTo=\(t.assignedTo ?? "null")\(t.deletedAt == nil ? "" : " deleted")"
        case .applyAccountTrackingChanges(let changes):
            "applyAccountTrackingChanges "
                + changes.map { "\($0.account.salesforceID)→\($0.newState.rawValue)" }.joined(separator: ",")
        case .createAssignment(let kind, let target, _, let to, _): "\(name) \(kind.rawValue) \(target)→\(to)"
        case .createUser(let u): "createUser \(u.email)"
        case .createOrganization(_, let n, _): "createOrganization \(n)"
        }
    }
}
