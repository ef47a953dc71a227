import WhaleProtocol

extension ModelClient {
    mutating func onReceived(_ envelope: ServerEnvelope, _ actions: inout [Action]) {
        switch envelope.message {
        case .resourceUpdate(let resourceId, let senderId, let update):
            let own = senderId == clientId.rawValue
            guard speaksV2, let update else {
                // The original: refetch unless we caused it.
                if !own { refetch(trigger: resourceId, &actions) }
                return
            }
            // An update at or below what the page knows is no gap: a fetch answered at a later
            // `seq` may overtake the socket's frames (they travel separate connections).
            let gap = socketSeq.map { update.seq > $0 + 1 } ?? false
            socketSeq = max(socketSeq ?? update.seq, update.seq)
            if firstSocketSeq == nil { firstSocketSeq = update.seq }
            if own {
                // The reply brings our own records, but a gap before our own update is a gap all
                // the same (the demo's seed 55: the only update after a missed one was our own).
                if gap { refetch(trigger: nil, &actions) }
                return
            }
            guard let record = ModelRecord(recordType: update.recordType, json: update.record) else {
                actions.append(
                    .failed("unreadable \(update.recordType) record in resourceUpdate \(envelope.messageId)"))
                refetch(trigger: nil, &actions)
                return
            }
            if gap {
                refetch(trigger: record.key, &actions)
            } else if absorbRemote(record, seq: update.seq, &actions) {
                echo(record.key, &actions)
            }
        case .poolJoined(let pool, let seq):
            guard speaksV2, isJoined, pool == poolId else { return }
            // Every update past `seq` reaches this socket. A fetch answered (or an update seen)
            // below `seq` leaves the updates up to `seq` unseen: they were made before the server
            // put this socket in the pool. Either order of this marker and the answer is caught:
            // the answer checks `firstSocketSeq` (see `onAnswer`).
            if let known = socketSeq, seq > known { refetch(trigger: nil, &actions) }
            socketSeq = max(socketSeq ?? seq, seq)
            if firstSocketSeq == nil { firstSocketSeq = seq + 1 }
        case .error(let error):
            actions.append(.failed("server error \(error.code.rawValue): \(error.message)"))
        default:
            break  // note messages are the ClientSession's
        }
    }

    /// A page fetch answered: every key the answer covers takes the answer's version, unless
    /// the client already knows that key at a newer `seq`. On the board the answer covers the
    /// user's tracking of every account (absent: not tracked) and the content of the tracked ones.
    mutating func onAnswer(_ requestId: String, _ result: Result<PoolSnapshot, ModelError>, _ actions: inout [Action]) {
        guard let fetch = fetches.removeValue(forKey: requestId) else { return }
        switch result {
        case .failure(let error):
            actions.append(.failed("fetch \(requestId) refused: \(error)"))
        case .success(let snapshot):
            var fetched: [String: ModelRecord] = [:]
            for received in snapshot.records {
                let (key, record) = shared(received)
                fetched[key] = record
            }
            var covered = Set(fetched.keys)
            if page == .board {
                for account in snapshot.accounts {
                    let tracking = ModelRecord.tracking(
                        Tracking(userId: caller.userId, accountId: account.id, tracked: true))
                    fetched[tracking.key] = tracking
                }
                // Every tracking key is covered (absent means untracked); account contents only when listed.
                covered = Set(fetched.keys).union(confirmed.keys.filter { $0.hasPrefix("tracking:") })
            } else {
                covered.formUnion(confirmed.keys)
            }
            for key in covered.sorted() {
                // The fault: the original app applies whatever answer arrives last.
                if !has(.staleRefetchOverwrites), let known = stamps[key], known > snapshot.seq { continue }
                // A record the page already holds as answered is kept, not replaced by its equal:
                // after a restart a thousand pages refetch at once, and swapping every record
                // for a fresh copy scattered the long-lived copies among the storm's short-lived
                // buffers, which kept the heap's pages from being handed back (issue 21).
                if confirmed[key] != fetched[key] { confirmed[key] = fetched[key] }
                stamps[key] = snapshot.seq
            }
            hasFetched = true
            if let trigger = fetch.trigger { echo(trigger, &actions) }
            if speaksV2, isJoined {
                if let first = firstSocketSeq {
                    // Updates came before this answer: the first of them must follow what it covers.
                    if first > snapshot.seq + 1 { refetch(trigger: nil, &actions) }
                } else {
                    // Nothing since the join yet: the next update must follow this answer.
                    socketSeq = max(socketSeq ?? snapshot.seq, snapshot.seq)
                    firstSocketSeq = snapshot.seq + 1
                }
            }
        }
    }

    /// A mutation answered: the records it wrote in this page's pool join the confirmed state.
    mutating func onReply(_ requestId: String, _ result: Result<MutationReply, ModelError>, _ actions: inout [Action]) {
        guard let index = pending.firstIndex(where: { $0.requestId == requestId }) else { return }
        pending.remove(at: index)
        switch result {
        case .failure(let error):
            actions.append(.refused(requestId: requestId, error))
        case .success(let reply):
            for update in reply.updates where update.poolId == poolId {
                absorbOwn(update.record, seq: update.seq, reply: reply)
            }
            actions.append(.acknowledged(requestId: requestId, order: reply.order))
        }
    }

    /// Stores `record` at `seq` if nothing newer is known for its key.
    mutating func store(_ key: String, _ record: ModelRecord?, seq: Int) {
        if let known = stamps[key], known >= seq { return }
        confirmed[key] = record
        stamps[key] = seq
    }

    /// Someone else's record; true when it changed what the page shows from the server.
    mutating func absorbRemote(_ received: ModelRecord, seq: Int, _ actions: inout [Action]) -> Bool {
        let (key, record) = shared(received)
        switch (page, record) {
        case (.board, .account(let a)):
            // Kept even when not on this board: a later tracking of ours shows the latest content.
            store(key, record, seq: seq)
            return isTracked(a.id)
        case (.board, .tracking(let t)):
            // The same user in another window tracked or untracked an account.
            if t.userId == caller.userId { store(trackingKey(t.accountId), record, seq: seq) }
            return false
        case (.account(let id), .contact(let c)):
            store(key, c.accountID == id ? record : nil, seq: seq)
            return c.accountID == id
        case (.account(let id), .task(let t)):
            store(key, t.associatedTo == id && !t.isDeleted ? record : nil, seq: seq)
            return t.associatedTo == id && !t.isDeleted
        case (.account, .assignment):
            store(key, record, seq: seq)
            return false
        default:
            return false
        }
    }

    /// One of our own records, from a reply.
    mutating func absorbOwn(_ record: ModelRecord, seq: Int, reply: MutationReply) {
        var ignored: [Action] = []
        _ = absorbRemote(record, seq: seq, &ignored)
    }

    /// The record and its key, as another page of this process already holds them when it has
    /// an equal one (``ModelRecordInterner``); the record itself without an interner.
    func shared(_ record: ModelRecord) -> (key: String, record: ModelRecord) {
        interner?.intern(record) ?? (record.key, record)
    }

    /// Where the board keeps whether the user tracks an account (a `Tracking` record).
    func trackingKey(_ accountId: String) -> String { "tracking:\(caller.userId)/\(accountId)" }

    func isTracked(_ accountId: String) -> Bool {
        if case .tracking(let t)? = confirmed[trackingKey(accountId)] { return t.tracked }
        return false
    }

    /// The `echo-storm` fault: after the server's version of a record arrives, the app saves that
    /// record again (a no-op save the original server still broadcasts).
    mutating func echo(_ key: String, _ actions: inout [Action]) {
        guard has(.echoStorm) else { return }
        // The record as the server just gave it (`key`, or a bare id from an original update).
        let candidates = [key] + ["account", "contact", "task"].map { "\($0):\(key)" }
        guard let found = candidates.first(where: { confirmed[$0] != nil }), let record = confirmed[found] else {
            return
        }
        switch record {
        case .account(let a): actions += mutate(.saveAccounts([AccountInput(a)]))
        case .contact(let c): actions += mutate(.saveContacts([ContactInput(c)]))
        case .task(let t): actions += mutate(.saveTask(t))
        default: break
        }
    }
}
