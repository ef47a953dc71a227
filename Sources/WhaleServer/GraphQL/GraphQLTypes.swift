import Foundation

/// The GraphQL view of the Whaler model: the original schema's types, field for field
/// (ZHRhodes/Whaler-api `graph/schema.graphqls`), so the Whaler app's own operations decode.
/// Mapped from the model's records by ``ModelHub``; never stored.
enum GQL {
    /// The `ID` scalar (the original's ids are strings).
    struct ID: Codable, Hashable, Sendable {
        var value: String
        init(_ value: String) { self.value = value }
        init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(String.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    /// The `Time` scalar: RFC 3339 text, as gqlgen writes it.
    struct Time: Codable, Hashable, Sendable {
        var value: String
        init(_ value: String) { self.value = value }
        init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(String.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
        /// Records carry no wall-clock times in the model; this is what the server reports.
        static let epoch = Time("2026-01-01T00:00:00Z")
    }

    struct User: Codable, Sendable {
        var id: ID
        var createdAt = Time.epoch
        var updatedAt = Time.epoch
        var deletedAt: Time?
        var email: String
        /// Always empty: the original blanks it before answering.
        var password = ""
        var firstName: String
        var lastName: String
        var isAdmin: Bool
        var organizationID: ID
    }

    struct Organization: Codable, Sendable {
        var id: ID
        var createdAt = Time.epoch
        var updatedAt = Time.epoch
        var deletedAt: Time?
        var name: String
        var users: [User]
    }

    struct Account: Codable, Sendable {
        var id: ID
        var createdAt = Time.epoch
        var updatedAt = Time.epoch
        var deletedAt: Time?
        var name: String
        var salesforceID: String?
        var salesforceOwnerID: String?
        var industry: String?
        var description: String?
        var numberOfEmployees: String?
        var annualRevenue: String?
        var billingCity: String?
        var billingState: String?
        var phone: String?
        var website: String?
        var type: String?
        var state: String?
        var notes: String?
        var assignmentEntries: [AccountAssignmentEntry]
        var assignedTo: String?
    }

    struct Contact: Codable, Sendable {
        var id: ID
        var createdAt = Time.epoch
        var updatedAt = Time.epoch
        var deletedAt: Time?
        var salesforceID: String?
        var firstName: String
        var lastName: String
        var jobTitle: String?
        var state: String?
        var email: String?
        var phone: String?
        var accountID: String?
        var assignedTo: String?
        var assignmentEntries: [ContactAssignmentEntry]
    }

    struct Task: Codable, Sendable {
        var id: ID
        var createdAt = Time.epoch
        var updatedAt = Time.epoch
        var deletedAt: Time?
        var associatedTo: ID?
        var description: String
        var done: Bool
        var type: String?
        var dueDate: Time?
        var assignedTo: String?
    }

    struct Note: Codable, Sendable {
        var id: ID
        var createdAt = Time.epoch
        var updatedAt = Time.epoch
        var deletedAt: Time?
        var ownerID: ID
        var accountID: ID
        var content: String
    }

    struct AccountAssignmentEntry: Codable, Sendable {
        var id: ID
        var createdAt = Time.epoch
        var updatedAt = Time.epoch
        var deletedAt: Time?
        var accountId: ID
        var assignedBy: String
        var assignedTo: String?
    }

    struct ContactAssignmentEntry: Codable, Sendable {
        var id: ID
        var createdAt = Time.epoch
        var updatedAt = Time.epoch
        var deletedAt: Time?
        var contactId: ID
        var assignedBy: String
        var assignedTo: String?
    }

    struct TaskAssignmentEntry: Codable, Sendable {
        var id: ID
        var createdAt = Time.epoch
        var updatedAt = Time.epoch
        var deletedAt: Time?
        var taskId: ID
        var assignedBy: String
        var assignedTo: String?
    }

    // Inputs, as the original declares them.

    struct NewAccount: Codable, Sendable {
        var id: ID?
        var salesforceID: String?
        var salesforceOwnerID: String?
        var name: String
        var industry: String?
        var description: String?
        var numberOfEmployees: String?
        var annualRevenue: String?
        var billingCity: String?
        var billingState: String?
        var phone: String?
        var website: String?
        var type: String?
        var state: String?
        var notes: String?
        var assignedTo: String?
    }

    struct NewContact: Codable, Sendable {
        var id: ID?
        var salesforceID: String?
        var firstName: String
        var lastName: String
        var jobTitle: String?
        var state: String?
        var email: String?
        var phone: String?
        var accountID: String?
        var assignedTo: String?
    }

    struct SaveTask: Codable, Sendable {
        var id: ID
        var createdAt: Time
        var deletedAt: Time?
        var associatedTo: ID?
        var description: String?
        var done: Bool?
        var type: String?
        var dueDate: Time?
        var assignedTo: String?
    }

    struct NewNote: Codable, Sendable {
        var id: ID
        var accountID: ID
        var content: String
    }

    struct AccountTrackingChange: Codable, Sendable {
        var account: NewAccount
        var newState: String
    }

    struct NewAccountAssignmentEntry: Codable, Sendable {
        var accountId: ID
        var assignedBy: String
        var assignedTo: String?
    }

    struct NewContactAssignmentEntry: Codable, Sendable {
        var contactId: ID
        var assignedBy: String
        var assignedTo: String?
    }

    struct NewTaskAssignmentEntry: Codable, Sendable {
        var taskId: ID
        var assignedBy: String
        var assignedTo: String?
    }

    struct NewUser: Codable, Sendable {
        var email: String
        var password: String
        var organizationID: ID
    }

    struct NewOrganization: Codable, Sendable {
        var name: String
    }
}
