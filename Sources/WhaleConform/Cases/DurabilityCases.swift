import WhaleOT
import WhaleProtocol

/// Durability, when the suite can kill and restart the server (it started it, or
/// `--restart-command` says how): an acknowledged op survives a crash, including one whose
/// broadcast had not reached the other member yet (DESIGN.md: persist before acknowledging).
/// A kill right after an acknowledgement also catches `ack-before-durable`, whose commit follows
/// its ack by up to 50 ms (a power loss, which only lazyfs gives, is not needed for that).
enum DurabilityCases {
    static let all: [ConformCase] = [
        ConformCase(
            "durability.kill-between-ack-and-broadcast",
            "An op is acknowledged to its author while the other member's bytes are held by the fault proxy; the server is killed and restarted; both members, rejoining, find the op (a resync from the old revision carries it).",
            requires: [.restart], suspects: [.ackBeforeDurable]
        ) { c async throws(ConformFailure) in
            let (note, _) = try await c.note("durable")
            let (a, conf) = try await c.member(.member, note: note, name: "A")
            _ = try await c.member(.colleague, note: note, name: "B", viaProxy: true)
            let proxy = try await c.run.proxy()
            proxy.partition(clients: [c.proxyTag("B")])
            let op = Operation.replace(in: 7, at: 7, inserting: "!")
            let ack = try await a.takeOpOrError(a.send(op, rev: conf.revision).messageId)
            try c.expect(ack == op, "the op must apply as sent; got \(ack)")
            try await c.restartServer()
            proxy.heal(clients: [c.proxyTag("B")])
            let b2 = NoteClient(
                socket: try await c.socket(.colleague, pool: note, name: "B2"), resourceId: note, version: c.version,
                tag: "\(c.caseId)-B2")
            let rejoin = try await b2.join(revision: c.v2 ? conf.revision : nil)
            if c.v2, let missed = rejoin.missedOps {
                try c.expect(
                    missed.map(\.op) == [op],
                    "after the restart, B's resync from revision \(conf.revision) must carry the acknowledged op \(op); it carried \(missed.map(\.op))"
                )
            } else {
                try c.expect(
                    rejoin.initialState == "durable!",
                    "after the restart B must read \"durable!\"; it reads \(quoted(rejoin.initialState ?? "nil"))")
            }
            try c.expect(
                rejoin.revision == conf.revision + 1,
                "after the restart the revision must be \(conf.revision + 1); B's join says \(rejoin.revision)")
            let final = try await c.read(note, as: .member)
            try c.expect(
                final.initialState == "durable!",
                "after the restart the note must read \"durable!\"; a fresh join reads \(quoted(final.initialState ?? "nil"))"
            )
        },
        ConformCase(
            "durability.acked-ops-survive-restart",
            "Thirty pipelined ops, every one acknowledged, then a kill and restart: the note reads all of them at the revision they made.",
            requires: [.restart], suspects: [.ackBeforeDurable]
        ) { c async throws(ConformFailure) in
            let (note, _) = try await c.note("log:")
            let (a, conf) = try await c.member(.member, note: note, name: "A")
            var text = conf.initialState ?? "", last = ""
            for i in 0..<30 {
                let op = Operation.replace(
                    in: text.unicodeScalars.count, at: text.unicodeScalars.count, inserting: " \(i)")
                last = a.send(op, rev: conf.revision + i).messageId
                text = try! op.apply(to: text)
            }
            _ = try await a.takeOpOrError(last)
            try await c.restartServer()
            let final = try await c.read(note, as: .member)
            try c.expect(
                final.initialState == text && final.revision == conf.revision + 30,
                "after the restart the note must read \(quoted(text)) at revision \(conf.revision + 30); it reads \(quoted(final.initialState ?? "nil")) at \(final.revision)"
            )
        },
    ]
}

extension CaseContext {
    /// Kills and restarts the server, then signs in afresh (a restart may change the token key).
    func restartServer() async throws(ConformFailure) {
        guard let restarter = target.restarter else {
            throw ConformFailure("no way to restart the server (a bug in the suite: the case requires one)")
        }
        do {
            try await restarter.killAndRestart()
        } catch {
            throw ConformFailure("the restart failed: \(error)")
        }
        run.forgetSessions()
    }
}
