import WhaleModel
import WhaleProtocol

extension Simulation {
    /// A model workload action of client `c`: a mutation built from what its page shows. False
    /// when it does not apply (wrong page, nothing to act on, page not fetched yet): the client idles.
    mutating func modelAct(_ c: Int, _ action: ActionMix.Action) -> Bool {
        guard editsLeft > 0, let m = model, m.clients[c].isJoined, m.clients[c].hasFetched else { return false }
        let client = m.clients[c]
        let me = m.callers[c].userId
        var rng = clientRandom[c]
        defer { clientRandom[c] = rng }
        func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[rng.int(in: 0...(items.count - 1))] }
        func other(_ column: KanbanState, in columns: [KanbanState]) -> KanbanState {
            let choices = columns.filter { $0 != column }
            return choices[rng.int(in: 0...(choices.count - 1))]
        }
        var mutation: Mutation?
        switch (client.page, action) {
        case (.board, .moveAccount):
            if let a = pick(client.accounts) {
                var input = AccountInput(a)
                input.state = other(a.column, in: KanbanState.allCases).rawValue
                mutation = .saveAccounts([input])
            }
        case (.board, .track):
            let shown = Set(client.accounts.map(\.id))
            if let a = pick(m.seedAccounts.filter { !shown.contains($0.id) }) {
                mutation = .applyAccountTrackingChanges([TrackingChange(account: AccountInput(a), newState: .tracked)])
            }
        case (.board, .untrack):
            if client.accounts.count > 1, let a = pick(client.accounts) {
                mutation = .applyAccountTrackingChanges([TrackingChange(account: AccountInput(a), newState: .untracked)])
            }
        case (.board, .assignAccount):
            if let a = pick(client.accounts), let to = pick(m.users) {
                mutation = .createAssignment(kind: .account, targetId: a.id, assignedBy: me, assignedTo: to)
            }
        case (.account, .moveContact):
            if let contact = pick(client.contacts) {
                var input = ContactInput(contact)
                input.state = other(contact.column, in: KanbanState.contactColumns).rawValue
                mutation = .saveContacts([input])
            }
        case (.account(let accountId), .createTask):
            let text = generator.snippet(rng.int(in: 4...12), using: &rng)
            let task = TaskItem(id: "\(clientIds[c].rawValue)-task-\(model!.nextTask)", associatedTo: accountId, description: text,
                                done: false, type: TaskType.allCases[rng.int(in: 0...2)], dueDate: "2026-12-\(rng.int(in: 10...28))")
            model!.nextTask += 1
            mutation = .saveTask(task)
        case (.account, .completeTask):
            if var task = pick(client.tasks) {
                task.done.toggle()
                mutation = .saveTask(task)
            }
        case (.account, .reassignTask):
            if let task = pick(client.tasks), let to = pick(m.users) {
                mutation = .createAssignment(kind: .task, targetId: task.id, assignedBy: me, assignedTo: to)
            }
        case (.account, .deleteTask):
            if client.tasks.count > 1, var task = pick(client.tasks) {
                task.deletedAt = "t\(clock.now)"
                mutation = .saveTask(task)
            }
        default:
            break
        }
        guard let mutation else { return false }
        editsLeft -= 1
        counts.edits += 1
        modelPerform(model!.clients[c].mutate(mutation), client: c)
        return true
    }
}
