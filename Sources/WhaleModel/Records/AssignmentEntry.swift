/// What an assignment entry assigns.
public enum AssignmentKind: String, Codable, Hashable, Sendable, CaseIterable {
    case account, contact, task
}

/// One entry of an account's, contact's or task's assignment log (the three
/// `create…AssignmentEntry` mutations). Creating one also sets the target's `assignedTo`.
///
/// ```swift
/// let entry = AssignmentEntry(id: "as-3", kind: .task, targetId: "t-9f2c", assignedBy: "u-ann", assignedTo: "u-bo")
/// ```
public struct AssignmentEntry: Codable, Hashable, Sendable {
    public var id: String
    public var kind: AssignmentKind
    public var targetId: String
    public var assignedBy: String
    public var assignedTo: String
    /// Supplied by the caller (the live server's clock); the model has no clock.
    public var createdAt: String?

    public init(
        id: String, kind: AssignmentKind, targetId: String, assignedBy: String, assignedTo: String,
        createdAt: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.targetId = targetId
        self.assignedBy = assignedBy
        self.assignedTo = assignedTo
        self.createdAt = createdAt
    }
}

/// Whether `userId` tracks `accountId` (the account is on that user's board). Tracking is per
/// user: many users may track one account.
public struct Tracking: Codable, Hashable, Sendable {
    public var userId: String
    public var accountId: String
    public var tracked: Bool
    public init(userId: String, accountId: String, tracked: Bool) {
        self.userId = userId
        self.accountId = accountId
        self.tracked = tracked
    }
    public var id: String { "\(userId)/\(accountId)" }
}
