import WhaleModel
import WhaleProtocol

/// The model workload's choices, shared by the simulator and the live runner: from what a
/// client's page shows, the mutation a model action makes (a card moved to another column, an
/// account tracked or untracked, a task created, completed, reassigned or deleted...). Pure: the
/// caller passes the page, the people it may assign to, the accounts it may track, the next task
/// id and the clock's reading for a deletion stamp, and its own random stream.
public enum ModelWorkload {
    /// What a workload action needs beyond the page.
    public struct Inputs {
        /// The caller's user id (`assignedBy`).
        public var me: String
        /// Users a card or task may be assigned to.
        public var users: [String]
        /// Accounts the user could start tracking (the board's `track`).
        public var trackable: [AccountInput]
        /// The id a created task gets.
        public var newTaskId: String
        /// A deletion stamp (`deletedAt`).
        public var now: String
        public init(me: String, users: [String], trackable: [AccountInput], newTaskId: String, now: String) {
            self.me = me
            self.users = users
            self.trackable = trackable
            self.newTaskId = newTaskId
            self.now = now
        }
    }

    /// The most open tasks a page may show for `create-task` to add one.
    public static let maxTasksOnPage = 12

    /// The mutation `action` makes on `client`'s page, or nil when it does not apply there
    /// (wrong page, nothing to act on): the client idles instead.
    public static func mutation(
        _ action: ActionMix.Action, on client: ModelClient, _ inputs: Inputs,
        generator: TextGenerator, using rng: inout SimRandom
    ) -> Mutation? {
        func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[rng.int(in: 0...(items.count - 1))] }
        func other(_ column: KanbanState, in columns: [KanbanState]) -> KanbanState {
            let choices = columns.filter { $0 != column }
            return choices[rng.int(in: 0...(choices.count - 1))]
        }
        switch (client.page, action) {
        case (.board, .moveAccount):
            guard let a = pick(client.accounts) else { return nil }
            var input = AccountInput(a)
            input.state = other(a.column, in: KanbanState.allCases).rawValue
            return .saveAccounts([input])
        case (.board, .track):
            let shown = Set(client.accounts.map(\.salesforceID))
            guard let a = pick(inputs.trackable.filter { !shown.contains($0.salesforceID) }) else { return nil }
            return .applyAccountTrackingChanges([TrackingChange(account: a, newState: .tracked)])
        case (.board, .untrack):
            guard client.accounts.count > 1, let a = pick(client.accounts) else { return nil }
            return .applyAccountTrackingChanges([TrackingChange(account: AccountInput(a), newState: .untracked)])
        case (.board, .assignAccount):
            guard let a = pick(client.accounts), let to = pick(inputs.users) else { return nil }
            return .createAssignment(kind: .account, targetId: a.id, assignedBy: inputs.me, assignedTo: to)
        case (.account, .moveContact):
            guard let contact = pick(client.contacts) else { return nil }
            var input = ContactInput(contact)
            input.state = other(contact.column, in: KanbanState.contactColumns).rawValue
            return .saveContacts([input])
        case (.account(let accountId), .createTask):
            // A full page gets no new task until one is done with: deletions need a task to pick
            // and two pages may delete the same one, so at equal weights the lists would grow all
            // run long, and every page of the account holds them (issue 21's soak).
            guard client.tasks.count < maxTasksOnPage else { return nil }
            let text = generator.snippet(rng.int(in: 4...12), using: &rng)
            return .saveTask(
                TaskItem(
                    id: inputs.newTaskId, associatedTo: accountId, description: text, done: false,
                    type: TaskType.allCases[rng.int(in: 0...2)], dueDate: "2026-12-\(rng.int(in: 10...28))"))
        case (.account, .completeTask):
            guard var task = pick(client.tasks) else { return nil }
            task.done.toggle()
            return .saveTask(task)
        case (.account, .reassignTask):
            guard let task = pick(client.tasks), let to = pick(inputs.users) else { return nil }
            return .createAssignment(kind: .task, targetId: task.id, assignedBy: inputs.me, assignedTo: to)
        case (.account, .deleteTask):
            guard client.tasks.count > 1, var task = pick(client.tasks) else { return nil }
            task.deletedAt = inputs.now
            return .saveTask(task)
        default:
            return nil
        }
    }
}
