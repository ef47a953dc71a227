import Foundation
import WhaleProtocol

/// The model at an edge (issue 48): a pool member that reconnects between two updates, its new
/// socket open before its old one is closed, as a client that notices a dead connection first does.
enum ModelEdgeCases {
    static let all: [ConformCase] = [
        ConformCase(
            "model.pool-rejoin-within-one-update",
            "A member whose pool socket is replaced between two updates (its new socket in the pool before its old one closes, as a reconnect does) is told the seq of the last update on joining, and gets the next resourceUpdate on the new socket once, with the seq after it: no gap, no duplicate.",
            requires: [.protocol2], suspects: [.rejoinLosesUpdate]
        ) { c async throws(ConformFailure) in
            let account = try await c.freshAccount()
            let old = try await c.socket(.colleague, pool: account, name: "old")
            try await c.poolReady([old])
            let first = try await c.saveContact(on: account, sender: "conform-first")
            let seen = try await ModelEdgeCases.seq(of: first, on: old, c)
            let new = try await c.socket(.colleague, pool: account, name: "new")
            try await c.poolReady([new])
            let joined = await new.take {
                if case .poolJoined(let pool, _) = $0.message { return pool == account }; return false
            }
            guard case .poolJoined(_, let told)? = joined?.message else {
                throw ConformFailure("\(new.name) got no poolJoined for \(account); \(new.recent())")
            }
            try c.expect(
                told == seen, "the rejoined socket must be told seq \(seen), the last update's; it is told \(told)")
            await old.close()
            try? await Task.sleep(for: c.target.quietPeriod)  // the server notices the old socket's leave
            let second = try await c.saveContact(on: account, sender: "conform-second")
            let carried = try await ModelEdgeCases.seq(of: second, on: new, c)
            try c.expect(
                carried == seen + 1,
                "the update after the rejoin must carry seq \(seen + 1) (the one after \(seen)); it carries \(carried)")
            let again = await new.take(within: c.target.quietPeriod) {
                if case .resourceUpdate(let id, _, _) = $0.message { return id == second }; return false
            }
            try c.expect(again == nil, "\(new.name) got the update after the rejoin twice")
        }
    ]

    /// The seq the resourceUpdate for record `id` carries on `socket`.
    static func seq(of id: String, on socket: ConformSocket, _ c: CaseContext) async throws(ConformFailure) -> Int {
        let update = await socket.take {
            if case .resourceUpdate(let r, _, _) = $0.message { return r == id }; return false
        }
        guard case .resourceUpdate(_, _, let carried?)? = update?.message else {
            throw ConformFailure(
                "\(socket.name) must get a resourceUpdate for \(id) carrying its seq; got \(update.map { "\($0.message)" } ?? "none within \(c.target.timeout)"); \(socket.recent())"
            )
        }
        return carried.seq
    }
}
