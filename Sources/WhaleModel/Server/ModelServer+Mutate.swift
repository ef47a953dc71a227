import WhaleProtocol

extension ModelServer {
    /// Validates the whole mutation against a copy of the state, then commits: persist, send, reply.
    mutating func mutate(
        requestId: String, caller: Caller, senderID: String?, _ mutation: Mutation, _ actions: inout [Action]
    ) {
        var draft = Draft(server: self, caller: caller)
        do {
            _ = try member(caller)
            try draft.apply(mutation)
        } catch {
            actions.append(.reply(requestId: requestId, .failure(error)))
            return
        }
        var next = draft.state
        next.order += 1
        var changes: [ModelChange] =
            draft.written.map { .record($0.record) } + draft.credentials.map { .credential($0) }
        var updates: [PoolUpdate] = []
        for write in draft.written {
            for poolId in write.pools {
                let seq = (next.poolSeqs[poolId] ?? 0) + 1
                next.poolSeqs[poolId] = seq
                updates.append(PoolUpdate(poolId: poolId, seq: seq, record: write.record))
            }
        }
        for poolId in Set(updates.map(\.poolId)).sorted() {
            changes.append(.poolSeq(poolId: poolId, seq: next.poolSeqs[poolId]!))
        }
        changes.append(.counters(order: next.order, nextId: next.nextId))
        state = next
        actions.append(.persist(changes))
        for update in updates {
            let members = members(of: update.poolId)
            // Encoded once per update, only if some member speaks protocol 2.
            let anyV2 = members.contains { self.members[$0]?.protocolVersion == .v2 }
            let record =
                anyV2
                ? RecordUpdate(recordType: update.record.recordType, record: update.record.wireJSON, seq: update.seq)
                : nil
            for client in members {
                let carried = self.members[client]?.protocolVersion == .v2 ? record : nil
                let message = ServerMessage.resourceUpdate(
                    resourceId: update.record.id, senderId: senderID ?? "", update: carried)
                actions.append(
                    .send(
                        client,
                        ServerEnvelope(senderId: configuration.serverId, messageId: makeMessageId(), message: message)))
            }
        }
        let reply = MutationReply(
            order: next.order, records: draft.written.map(\.record).filter { $0.recordType != "tracking" },
            updates: updates)
        actions.append(.reply(requestId: requestId, .success(reply)))
    }
}
