extension ModelServer {
    /// The organization `record` belongs to: its own id, a user's or an account's
    /// `organizationId`, the account's for a contact, task or assignment entry (through
    /// ``accountPool(of:)``), the user's for a tracking. Nil when the record points at nothing
    /// (a dangling id), so it belongs to nobody and is shown to nobody.
    public func organizationId(of record: ModelRecord) -> String? {
        switch record {
        case .organization(let o): o.id
        case .user(let u): u.organizationId
        case .account(let a): a.organizationId
        case .contact, .task, .assignment: accountPool(of: record).flatMap { state.accounts[$0]?.organizationId }
        case .tracking(let t): state.users[t.userId]?.organizationId
        }
    }

    /// Every record of the caller's organization, sorted by key: what the load runner hands the
    /// model checker as the live server's final state (the live twin of the simulator's
    /// `modelServerState`, cut to one organization so nothing of another one leaks).
    /// Credentials, pool counters and the order counter are no records and are left out.
    public func organizationRecords(_ caller: Caller) throws(ModelError) -> [ModelRecord] {
        _ = try member(caller)
        return state.changes.compactMap { change in
            guard case .record(let record) = change, organizationId(of: record) == caller.organizationId else {
                return nil
            }
            return record
        }
    }
}
