import WhaleProtocol

/// The server's storage as a power loss sees it: what was written and what is durable. The
/// reference server acknowledges an op only once its commit is durable, so with no fault and
/// `storage.synchronous: full` a write is durable at once (the wait is not modelled). Under
/// `ack-before-durable` the ack leaves as the write is queued and the sync ends `storageSyncTicks`
/// later; at `normal` the log is synced at the next checkpoint and at `off` only by the operating
/// system's writeback (``StorageSync``). A sync makes everything written before it durable (one log
/// file). A `server-restart` (kill -9) keeps what was written (the OS has it); a `power-loss` keeps
/// only what is durable.
extension Simulation {
    /// How long after its write an entry is durable under `ack-before-durable`, in ticks: the
    /// reference server's commit interval with that fault (50 ms), so a reproducer cut from a live
    /// power loss loses at least the ops the live one lost.
    static let storageSyncTicks = 50

    /// One persisted entry of document `d` reaches the storage.
    mutating func write(_ entry: PersistEntry, document d: Int) {
        settleStorage()
        let early = server?.faults.contains(.ackBeforeDurable) ?? false
        let level = scenario.storageSync.durableAt(writtenAt: clock.now)
        if !early, level == nil, unsynced.isEmpty {
            durable[d].append(entry)
            return
        }
        // The later of the two: an early ack does not make a level that never syncs sync sooner.
        let syncAt = max(level ?? clock.now, early ? clock.now + Self.storageSyncTicks : clock.now)
        unsynced.append((d, entry, syncAt))
        settleStorage()
    }

    /// Moves every entry up to the newest finished sync into the durable state.
    mutating func settleStorage() {
        guard let last = unsynced.lastIndex(where: { $0.syncAt <= clock.now }) else { return }
        for pending in unsynced[...last] { durable[pending.document].append(pending.entry) }
        unsynced.removeFirst(last + 1)
    }

    /// The power goes: what was written but not durable is gone; the restart reads the rest.
    mutating func losePower() {
        guard server != nil else { return }
        settleStorage()
        let lost = unsynced.count
        record(.note("power loss: \(lost) written entr\(lost == 1 ? "y" : "ies") not yet durable lost"))
        unsynced = []
        persisted = durable
    }
}
