/// A Salesforce account imported into an organization; a card on the kanban board. `state` is
/// the column (``KanbanState`` strings); `salesforceID` is the upsert key within the organization.
///
/// ```swift
/// var acme = Account(id: "acc-1", organizationId: "org-1", salesforceID: "001A", name: "Acme")
/// acme.state = KanbanState.inProgress.rawValue
/// ```
public struct Account: Codable, Hashable, Sendable {
    public var id: String
    public var organizationId: String
    public var salesforceID: String
    public var salesforceOwnerID: String?
    public var name: String
    public var industry: String?
    public var description: String?
    public var numberOfEmployees: Int?
    public var annualRevenue: String?
    public var billingCity: String?
    public var billingState: String?
    public var phone: String?
    public var website: String?
    public var type: String?
    public var state: String?
    public var assignedTo: String?

    public init(
        id: String, organizationId: String, salesforceID: String, salesforceOwnerID: String? = nil, name: String,
        industry: String? = nil, description: String? = nil, numberOfEmployees: Int? = nil,
        annualRevenue: String? = nil,
        billingCity: String? = nil, billingState: String? = nil, phone: String? = nil, website: String? = nil,
        type: String? = nil, state: String? = nil, assignedTo: String? = nil
    ) {
        self.id = id
        self.organizationId = organizationId
        self.salesforceID = salesforceID
        self.salesforceOwnerID = salesforceOwnerID
        self.name = name
        self.industry = industry
        self.description = description
        self.numberOfEmployees = numberOfEmployees
        self.annualRevenue = annualRevenue
        self.billingCity = billingCity
        self.billingState = billingState
        self.phone = phone
        self.website = website
        self.type = type
        self.state = state
        self.assignedTo = assignedTo
    }

    /// The column the card is in (null or unknown reads as `Ready`).
    public var column: KanbanState { KanbanState.reading(state) }
}
