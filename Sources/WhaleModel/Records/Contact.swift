/// A contact of an account; a card on the account page's board (columns `Ready`,
/// `In Progress`, `Worked`). `salesforceID` is the upsert key within the organization.
///
/// ```swift
/// let bo = Contact(id: "con-1", accountID: "acc-1", salesforceID: "003A", firstName: "Bo", lastName: "Ng", state: "Worked")
/// ```
public struct Contact: Codable, Hashable, Sendable {
    public var id: String
    public var accountID: String
    public var salesforceID: String
    public var firstName: String
    public var lastName: String
    public var jobTitle: String?
    public var state: String?
    public var email: String?
    public var phone: String?
    public var assignedTo: String?

    public init(
        id: String, accountID: String, salesforceID: String, firstName: String, lastName: String,
        jobTitle: String? = nil,
        state: String? = nil, email: String? = nil, phone: String? = nil, assignedTo: String? = nil
    ) {
        self.id = id
        self.accountID = accountID
        self.salesforceID = salesforceID
        self.firstName = firstName
        self.lastName = lastName
        self.jobTitle = jobTitle
        self.state = state
        self.email = email
        self.phone = phone
        self.assignedTo = assignedTo
    }

    /// The column the card is in (null or unknown reads as `Ready`).
    public var column: KanbanState { KanbanState.reading(state) }
}
