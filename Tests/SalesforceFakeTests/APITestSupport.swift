import Foundation
import SalesforceFake

/// A small org built in code for the API tests, so they do not depend on fixture contents:
/// Users (2 principals), 3 Accounts, 2 Contacts. The SOQL engine answers the queries.
enum APITestOrg {
    static let username = "admin@api.test"
    static let password = "pw123"
    static let securityToken = "TOK"
    static let userId = "005000000000001AAA"
    static let otherUsername = "rep@api.test"
    static let appId = "test-app"
    static let appSecret = "test-secret"
    static let redirect = "http://localhost:3000/callback"
    static let apps = [
        ConnectedApp(clientId: appId, clientSecret: appSecret, redirectURIs: [redirect], runAsUsername: otherUsername)
    ]

    static func make(pageSize: Int = 2000) throws -> Org {
        let settings = OrgSettings(
            orgId: "00D000000000001AAA", name: "API Test Org", now: Date(timeIntervalSince1970: 1_705_314_600),
            timeZone: "America/Los_Angeles", apiVersionMin: "37.0", apiVersionMax: "59.0", defaultPageSize: pageSize)
        let user = ObjectSchema(
            name: "User", keyPrefix: "005",
            fields: [
                FieldSchema(name: "Username", type: .string, nillable: false, length: 80),
                FieldSchema(name: "FirstName", type: .string, length: 40),
                FieldSchema(name: "LastName", type: .string, nillable: false, length: 80),
                FieldSchema(
                    name: "Name", type: .string, createable: false, updateable: false, length: 121, calculated: true),
                FieldSchema(name: "Email", type: .email, length: 80),
            ])
        let account = ObjectSchema(
            name: "Account", keyPrefix: "001",
            fields: [
                FieldSchema(name: "Name", type: .string, nillable: false, length: 255),
                FieldSchema(name: "Industry", type: .picklist, picklistValues: ["Technology", "Finance", "Retail"]),
                FieldSchema(name: "BillingState", type: .string, length: 80),
                FieldSchema(name: "AnnualRevenue", type: .currency),
                FieldSchema(
                    name: "OwnerId", type: .reference, nillable: true, referenceTo: ["User"], relationshipName: "Owner"),
            ],
            childRelationships: [
                ChildRelationship(childSObject: "Contact", field: "AccountId", relationshipName: "Contacts")
            ])
        let contact = ObjectSchema(
            name: "Contact", keyPrefix: "003",
            fields: [
                FieldSchema(name: "AccountId", type: .reference, referenceTo: ["Account"], relationshipName: "Account"),
                FieldSchema(name: "FirstName", type: .string, length: 40),
                FieldSchema(name: "LastName", type: .string, nillable: false, length: 80),
                FieldSchema(
                    name: "Name", type: .string, createable: false, updateable: false, length: 121, calculated: true),
                FieldSchema(name: "Email", type: .email, length: 80),
            ])
        let org = Org(
            settings: settings, schemas: [account, contact, user],
            credentials: [
                Credential(username: username, password: password, securityToken: securityToken, userId: userId),
                Credential(
                    username: otherUsername, password: "other", securityToken: "OTK", userId: "005000000000002AAA"),
            ])
        let owner = try org.insert(
            type: "User",
            fields: [
                ("Username", "admin@api.test"), ("FirstName", "Ada"), ("LastName", "Admin"), ("Email", "ada@api.test"),
            ])
        let acme = try org.insert(
            type: "Account",
            fields: [
                ("Name", "Acme"), ("Industry", "Technology"), ("BillingState", "CA"), ("AnnualRevenue", 1000),
                ("OwnerId", .string(owner)),
            ])
        try org.insert(type: "Account", fields: [("Name", "Bolt"), ("Industry", "Finance"), ("BillingState", "NY")])
        try org.insert(type: "Account", fields: [("Name", "Crane"), ("Industry", "Retail"), ("BillingState", "CA")])
        try org.insert(
            type: "Contact", fields: [("AccountId", .string(acme)), ("FirstName", "Carol"), ("LastName", "Cole")])
        try org.insert(type: "Contact", fields: [("AccountId", .string(acme)), ("LastName", "Dee")])
        return org
    }

    /// A fake over the test org, plus a session token from the OAuth password grant.
    static func fakeWithSession(config: FakeSalesforceConfig = FakeSalesforceConfig(), pageSize: Int = 2000) throws -> (
        FakeSalesforce, String
    ) {
        let fake = FakeSalesforce(org: try make(pageSize: pageSize), config: config, connectedApps: apps)
        let response = fake.handle(passwordGrant())
        guard response.status == 200, let token = try JSONValue.parse(response.body)["access_token"]?.stringValue else {
            throw TestSetupError(message: "login failed: \(response.status) \(response.bodyText)")
        }
        return (fake, token)
    }

    static func passwordGrant(
        username: String = username, password: String = password + securityToken,
        secret: String = appSecret
    ) -> SFRequest {
        form(
            "/services/oauth2/token",
            [
                ("grant_type", "password"), ("client_id", appId), ("client_secret", secret),
                ("username", username), ("password", password),
            ])
    }

    static func form(_ path: String, _ fields: [(String, String)]) -> SFRequest {
        SFRequest(
            method: "POST", target: path, headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: fields.map { "\($0.0)=\(QueryString.encode($0.1))" }.joined(separator: "&"))
    }

    static func get(_ target: String, token: String?, headers: [(name: String, value: String)] = []) -> SFRequest {
        SFRequest(
            method: "GET", target: target, headers: (token.map { [("Authorization", "Bearer \($0)")] } ?? []) + headers)
    }

    static func send(_ method: String, _ target: String, token: String, json: String) -> SFRequest {
        SFRequest(
            method: method, target: target,
            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")], body: json)
    }

    /// `/services/data/v59.0/query?q=…` with the SOQL form-encoded (spaces as `+`).
    static func queryTarget(_ soql: String, all: Bool = false) -> String {
        "/services/data/v59.0/\(all ? "queryAll" : "query")?q="
            + QueryString.encode(soql).replacingOccurrences(of: "%20", with: "+")
    }
}

struct TestSetupError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

extension SFResponse {
    /// The body parsed as JSON (`.null` when it does not parse, so expectations fail readably).
    var json: JSONValue { (try? JSONValue.parse(body)) ?? .null }

    /// `errorCode` of the first element of a REST error array.
    var errorCode: String? { json[0]?["errorCode"]?.stringValue }
}
