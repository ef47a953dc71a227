/// `NewAccount`: an account as `saveAccounts` and `applyAccountTrackingChanges` send it. Upserted
/// by `salesforceID` within the caller's organization; every field is replaced (the app saves
/// whole records: moving a card is saving the card with its new `state`).
public struct AccountInput: Codable, Hashable, Sendable {
    /// Used for a new account when given (and free); otherwise the server makes one up.
    public var id: String?
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
        id: String? = nil, salesforceID: String, salesforceOwnerID: String? = nil, name: String,
        industry: String? = nil,
        description: String? = nil, numberOfEmployees: Int? = nil, annualRevenue: String? = nil,
        billingCity: String? = nil,
        billingState: String? = nil, phone: String? = nil, website: String? = nil, type: String? = nil,
        state: String? = nil, assignedTo: String? = nil
    ) {
        self.id = id
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

    /// The input that saves `account` as it is (a card move is this with another `state`).
    public init(_ account: Account) {
        self.init(
            id: account.id, salesforceID: account.salesforceID, salesforceOwnerID: account.salesforceOwnerID,
            name: account.name,
            industry: account.industry, description: account.description, numberOfEmployees: account.numberOfEmployees,
            annualRevenue: account.annualRevenue, billingCity: account.billingCity, billingState: account.billingState,
            phone: account.phone, website: account.website, type: account.type, state: account.state,
            assignedTo: account.assignedTo)
    }

    /// The account this input makes, with the given id and organization.
    public func account(id: String, organizationId: String) -> Account {
        Account(
            id: id, organizationId: organizationId, salesforceID: salesforceID, salesforceOwnerID: salesforceOwnerID,
            name: name,
            industry: industry, description: description, numberOfEmployees: numberOfEmployees,
            annualRevenue: annualRevenue,
            billingCity: billingCity, billingState: billingState, phone: phone, website: website, type: type,
            state: state,
            assignedTo: assignedTo)
    }
}

/// `NewContact`: upserted by `salesforceID` within the caller's organization, fields replaced.
public struct ContactInput: Codable, Hashable, Sendable {
    public var id: String?
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
        id: String? = nil, accountID: String, salesforceID: String, firstName: String, lastName: String,
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

    public init(_ contact: Contact) {
        self.init(
            id: contact.id, accountID: contact.accountID, salesforceID: contact.salesforceID,
            firstName: contact.firstName,
            lastName: contact.lastName, jobTitle: contact.jobTitle, state: contact.state, email: contact.email,
            phone: contact.phone, assignedTo: contact.assignedTo)
    }

    public func contact(id: String) -> Contact {
        Contact(
            id: id, accountID: accountID, salesforceID: salesforceID, firstName: firstName, lastName: lastName,
            jobTitle: jobTitle,
            state: state, email: email, phone: phone, assignedTo: assignedTo)
    }
}

/// `SaveTask`: the whole task, upserted by its client-generated `id`. `deletedAt` set deletes it.
public typealias TaskInput = TaskItem

/// One entry of `applyAccountTrackingChanges`.
public struct TrackingChange: Codable, Hashable, Sendable {
    public enum NewState: String, Codable, Hashable, Sendable { case tracked, untracked }
    public var account: AccountInput
    public var newState: NewState
    public init(account: AccountInput, newState: NewState) {
        self.account = account
        self.newState = newState
    }
}

/// `createUser`: a user of the caller's organization (the caller must be an admin).
public struct UserInput: Codable, Hashable, Sendable {
    public var id: String?
    public var email: String
    public var firstName: String
    public var lastName: String
    public var isAdmin: Bool
    /// Already hashed by the live server (bcrypt); opaque here.
    public var passwordHash: String
    public init(
        id: String? = nil, email: String, firstName: String, lastName: String, isAdmin: Bool, passwordHash: String
    ) {
        self.id = id
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.isAdmin = isAdmin
        self.passwordHash = passwordHash
    }
}
