import WhaleModel
import WhaleProtocol

extension Simulation {
    /// A model workload action of client `c`: a mutation built from what its page shows
    /// (``ModelWorkload``, which the live runner shares). False when it does not apply (wrong
    /// page, nothing to act on, page not fetched yet): the client idles.
    mutating func modelAct(_ c: Int, _ action: ActionMix.Action) -> Bool {
        guard editsLeft > 0, let m = model, m.clients[c].isJoined, m.clients[c].hasFetched else { return false }
        var rng = clientRandom[c]
        defer { clientRandom[c] = rng }
        let inputs = ModelWorkload.Inputs(
            me: m.callers[c].userId, users: m.users, trackable: m.seedAccounts.map(AccountInput.init),
            newTaskId: "\(clientIds[c].rawValue)-task-\(m.nextTask)", now: "t\(clock.now)")
        guard let mutation = ModelWorkload.mutation(action, on: m.clients[c], inputs, generator: generator, using: &rng)
        else { return false }
        if case .saveTask(let t) = mutation, t.id == inputs.newTaskId { model!.nextTask += 1 }
        editsLeft -= 1
        counts.edits += 1
        modelPerform(model!.clients[c].mutate(mutation), client: c)
        return true
    }
}
