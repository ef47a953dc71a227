extension ModelClient {
    /// What the page shows: the confirmed records with the pending mutations applied in order,
    /// sorted by key. After quiescence it must equal what the server's answer to the page's
    /// fetch shows (``PoolSnapshot/shown``: a deleted task's entries are kept but not shown).
    public var view: [ModelRecord] {
        var records = confirmed
        for (_, mutation) in pending { overlay(mutation, on: &records) }
        if page == .board {
            // The accounts the user tracks, with their latest content.
            var accounts: [ModelRecord] = []
            for case .tracking(let t) in records.values where t.tracked && t.userId == caller.userId {
                if let account = records["account:\(t.accountId)"] { accounts.append(account) }
            }
            return accounts.sorted { $0.key < $1.key }
        }
        var shown = records.values.filter { record in
            switch record {
            case .task(let t): return !t.isDeleted
            case .assignment(let e) where e.kind == .task:
                if case .task(let t)? = records["task:\(e.targetId)"] { return !t.isDeleted }
                return false
            default: return true
            }
        }
        shown.sort { $0.key < $1.key }
        return shown
    }

    /// The accounts on the board (board page), sorted by id.
    public var accounts: [Account] { view.compactMap { if case .account(let a) = $0 { a } else { nil } } }
    public var contacts: [Contact] { view.compactMap { if case .contact(let c) = $0 { c } else { nil } } }
    public var tasks: [TaskItem] { view.compactMap { if case .task(let t) = $0 { t } else { nil } } }
    public var assignments: [AssignmentEntry] { view.compactMap { if case .assignment(let e) = $0 { e } else { nil } } }

    /// The optimistic change of a pending mutation (what the app shows before the reply).
    func overlay(_ mutation: Mutation, on records: inout [String: ModelRecord]) {
        switch (page, mutation) {
        case (.board, .saveAccounts(let inputs)):
            for input in inputs {
                guard
                    let key = records.first(where: {
                        if case .account(let a) = $0.value { a.salesforceID == input.salesforceID } else { false }
                    })?.key,
                    case .account(let old) = records[key]
                else { continue }
                records[key] = .account(input.account(id: old.id, organizationId: old.organizationId))
            }
        case (.board, .applyAccountTrackingChanges(let changes)):
            for change in changes {
                let existing = records.values.compactMap {
                    if case .account(let a) = $0, a.salesforceID == change.account.salesforceID { a } else { nil }
                }.first
                guard let id = existing?.id ?? change.account.id else { continue }
                records["account:\(id)"] = .account(
                    change.account.account(id: id, organizationId: caller.organizationId))
                records[trackingKey(id)] = .tracking(
                    Tracking(userId: caller.userId, accountId: id, tracked: change.newState == .tracked))
            }
        case (.account(let page), .saveContacts(let inputs)):
            for input in inputs {
                guard
                    let key = records.first(where: {
                        if case .contact(let c) = $0.value { c.salesforceID == input.salesforceID } else { false }
                    })?.key,
                    case .contact(let old) = records[key]
                else { continue }
                records[key] = input.accountID == page ? .contact(input.contact(id: old.id)) : nil
            }
        case (.account(let page), .saveTask(let task)):
            records["task:\(task.id)"] = task.associatedTo == page ? .task(task) : nil
        case (_, .createAssignment(let kind, let targetId, _, let assignedTo, _)):
            let key = "\(kind.rawValue):\(targetId)"
            switch records[key] {
            case .account(var a)?: a.assignedTo = assignedTo; records[key] = .account(a)
            case .contact(var c)?: c.assignedTo = assignedTo; records[key] = .contact(c)
            case .task(var t)?: t.assignedTo = assignedTo; records[key] = .task(t)
            default: break
            }
        default:
            break
        }
    }
}
