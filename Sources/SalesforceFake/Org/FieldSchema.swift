/// The type of a field, as `describe` spells it.
public enum FieldType: String, Hashable, Sendable, CaseIterable {
    case id, string, textarea, picklist, multipicklist, reference, boolean, int, double, currency, percent
    case date, datetime, phone, url, email

    /// Types whose values are JSON strings and compare case-insensitively in SOQL.
    public var isText: Bool {
        switch self {
        case .string, .textarea, .picklist, .multipicklist, .phone, .url, .email, .id, .reference: return true
        default: return false
        }
    }

    /// Types whose values are numbers.
    public var isNumeric: Bool {
        switch self {
        case .int, .double, .currency, .percent: return true
        default: return false
        }
    }
}

/// One field of an sObject, from `schema/<Object>.json`; `describe` is generated from it.
public struct FieldSchema: Hashable, Sendable {
    /// Canonical API name, e.g. `BillingState`.
    public var name: String
    public var label: String
    public var type: FieldType
    public var nillable: Bool
    public var filterable: Bool
    public var sortable: Bool
    public var groupable: Bool
    public var createable: Bool
    public var updateable: Bool
    /// True for custom fields (`__c`); FIELDS(CUSTOM) selects these.
    public var custom: Bool
    public var length: Int
    /// Object names a reference points to (several for polymorphic `WhoId` / `WhatId`).
    public var referenceTo: [String]
    /// Relationship name for references, e.g. `Owner` for `OwnerId`.
    public var relationshipName: String?
    public var picklistValues: [String]
    /// Derived fields computed by the org (`Contact.Name`, `Task.IsClosed`): never writable.
    public var calculated: Bool
    /// Declared polymorphic in the fixture (`"polymorphic": true`) although it names one target:
    /// Salesforce keeps `Task.WhatId` polymorphic in an org whose tasks relate only to accounts.
    public var declaredPolymorphic: Bool

    /// A lookup that may point at several object types: describe reports `polymorphicForeignKey`,
    /// and SOQL reaches the target through the "Name" pseudo-object (`What.Type`, `What.Name`).
    public var isPolymorphic: Bool { type == .reference && (declaredPolymorphic || referenceTo.count > 1) }

    public init(
        name: String, label: String? = nil, type: FieldType, nillable: Bool = true, filterable: Bool = true,
        sortable: Bool = true, groupable: Bool = true, createable: Bool = true, updateable: Bool = true,
        custom: Bool? = nil, length: Int = 0, referenceTo: [String] = [], relationshipName: String? = nil,
        picklistValues: [String] = [], calculated: Bool = false, polymorphic: Bool = false
    ) {
        self.name = name
        self.label = label ?? name
        self.type = type
        self.nillable = nillable
        self.filterable = filterable
        self.sortable = sortable
        self.groupable = groupable
        self.createable = createable
        self.updateable = updateable
        self.custom = custom ?? name.hasSuffix("__c")
        self.length = length
        self.referenceTo = referenceTo
        self.relationshipName = relationshipName
        self.picklistValues = picklistValues
        self.calculated = calculated
        self.declaredPolymorphic = polymorphic
    }
}

/// A parent-to-child relationship: `Account.Contacts` is `(childSObject: "Contact", field: "AccountId",
/// relationshipName: "Contacts")`.
public struct ChildRelationship: Hashable, Sendable {
    public var childSObject: String
    public var field: String
    public var relationshipName: String

    public init(childSObject: String, field: String, relationshipName: String) {
        self.childSObject = childSObject
        self.field = field
        self.relationshipName = relationshipName
    }
}
