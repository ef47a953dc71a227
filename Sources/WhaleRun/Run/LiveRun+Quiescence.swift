import Foundation
import WhaleSim

/// Quiescence: every user's note joined and synchronized at the server's revision, every model
/// page quiet, and nothing moving for a moment; who keeps the run from it, and why.
extension LiveRun {
    /// The quiescence bound: the scenario's, or at most ``interruptedQuiescenceMs`` once interrupted.
    var quiescenceBoundMs: Int {
        interrupted == nil ? spec.quiescenceMs : min(spec.quiescenceMs, Self.interruptedQuiescenceMs)
    }

    func waitQuiescent(timeoutMs: Int, settleMs: Int = 300) async -> Bool {
        let deadline = clock.nowMs + timeoutMs
        var quietSince: Int?
        // An interruption during the wait shortens it to the interrupted bound.
        while clock.nowMs
            < min(deadline, interruptedAtMs.withLockedValue { $0.map { $0 + Self.interruptedQuiescenceMs } ?? .max })
        {
            if await isQuiet() {
                let now = clock.nowMs
                let lastMessage = recorders.map(\.lastMessageMs).max() ?? 0
                if quietSince == nil { quietSince = now }
                if now - quietSince! >= settleMs, now - lastMessage >= settleMs { return true }
            } else {
                quietSince = nil
            }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return false
    }

    /// The first `limit` users that keep the run from being quiet, and why (the note a run that
    /// never quiesces ends with, so its liveness finding can be followed up).
    func unquietReasons(limit: Int) -> String {
        let clientsAt = clientRevisions()
        var reasons: [String] = []
        for u in users.withLockedValue({ $0 }) {
            let why = unquiet(u, clientsAt: clientsAt)
            if !why.isEmpty { reasons.append("\(u.name): " + why.joined(separator: ", ")) }
        }
        let shown = reasons.prefix(limit).joined(separator: "; ")
        if reasons.isEmpty { return "every client is quiet; messages were still arriving" }
        return reasons.count > limit ? shown + "; and \(reasons.count - limit) more" : shown
    }

    /// True when every user's note is joined and synchronized at its recorder's revision, and
    /// nothing has moved for a moment; reconnects whoever is still out.
    private func isQuiet() async -> Bool {
        var quiet = true
        watchRecorders()
        for r in recorders where r.needsReconnect { await r.reconnectIfNeeded() }
        await refreshServerHeads()
        let clientsAt = clientRevisions()
        for u in users.withLockedValue({ $0 }) {
            if let m = u.modelPage, m.needsReconnect { await m.reconnectIfNeeded() }
            if let n = u.noteSession {
                if n.needsReconnect { await n.reconnectIfNeeded() }
                if let cause = n.halfOpenCause(nowMs: clock.nowMs) { n.abandon(cause: cause) }
            }
            if !unquiet(u, clientsAt: clientsAt).isEmpty { quiet = false }
        }
        return quiet
    }

    /// What keeps one user from being quiet: its model page, its note not joined and
    /// synchronized, or its note behind the server's revision. Empty when it is quiet.
    private func unquiet(_ u: VirtualUser, clientsAt: [Int: Int]) -> [String] {
        var why: [String] = []
        if let m = u.modelPage, !m.isQuiet { why.append(m.unquietReason) }
        if let n = u.noteSession {
            if !n.isSynchronized {
                why.append("note not joined and synchronized\(n.needsReconnect ? " (socket down)" : "")")
            } else if let server = referenceRevision(n.document, clientsAt: clientsAt[n.document] ?? 0),
                n.session.revision != server.revision
            {
                why.append("note at revision \(n.session.revision), \(server.source) \(server.revision)")
            }
        }
        return why
    }

    /// The revision a note's clients must reach to be quiet: the recorder's (what the server
    /// broadcast) while it is joined; while it is not (redialing, or stalled), the highest revision
    /// a synchronized client of the note holds, so the observer being down never holds the run
    /// back, nor judges it (the final reads and the server's account settle what it missed).
    private func referenceRevision(_ document: Int, clientsAt: Int) -> (revision: Int, source: String)? {
        let r = recorders[document]
        if r.isJoined, r.revision >= clientsAt { return (r.revision, "server's") }
        // The recorder is down or behind the note's clients: the server's own answer decides.
        if let head = serverHeads.withLockedValue({ $0[document] }) {
            return (head.revision, "server's (read by a fresh join; its recorder at \(r.revision))")
        }
        return nil
    }

    /// Per note, the highest revision a joined and synchronized client holds (one pass over the users).
    private func clientRevisions() -> [Int: Int] {
        var out: [Int: Int] = [:]
        for u in users.withLockedValue({ $0 }) {
            guard let n = u.noteSession, n.isSynchronized else { continue }
            out[n.document] = max(out[n.document] ?? 0, n.session.revision)
        }
        return out
    }

    /// For each note whose recorder is down or behind its clients, the server's revision by a
    /// fresh join, at most once a second a note (what quiescence compares the clients with then).
    private func refreshServerHeads() async {
        guard let token = setupToken else { return }
        let now = clock.nowMs
        let clientsAt = clientRevisions()
        for (d, r) in recorders.enumerated() {
            let behind = !r.isJoined || r.revision < (clientsAt[d] ?? 0)
            guard behind else { serverHeads.withLockedValue { _ = $0.removeValue(forKey: d) }; continue }
            if let last = serverHeads.withLockedValue({ $0[d] }), now - last.atMs < 1_000 { continue }
            if let state = await ProbeJoin.read(
                socketURL: directSocketURL, resourceId: r.resourceId, token: token, timeout: .seconds(2))
            {
                serverHeads.withLockedValue { $0[d] = (state.revision, now) }
            }
        }
    }

    /// Runs every recorder's watchdog (half-open sockets are dropped and dialed again).
    func watchRecorders() {
        let now = clock.nowMs
        for r in recorders { r.watch(nowMs: now) }
    }
}
