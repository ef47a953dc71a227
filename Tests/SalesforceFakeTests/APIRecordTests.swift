import Foundation
import SalesforceFake
import Testing

/// sObject endpoints: describe, basic info, create / read / update / delete.
@Suite struct APIRecordTests {
    let base = "/services/data/v59.0/sobjects"

    @Test func globalDescribeListsEveryObject() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let json = fake.handle(APITestOrg.get(base, token: token)).json
        #expect(json["encoding"] == "UTF-8")
        #expect(json["maxBatchSize"] == 200)
        let names = json["sobjects"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(names == ["Account", "Contact", "User"])
        #expect(json["sobjects"]?[0]?["urls"]?["describe"] == "/services/data/v59.0/sobjects/Account/describe")
    }

    @Test func describeIsGeneratedFromTheSchema() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        // Case-insensitive name and trailing slash; canonical name in the answer.
        let response = fake.handle(APITestOrg.get("\(base)/aCCount/describe/", token: token))
        #expect(response.status == 200)
        let json = response.json
        #expect(json["name"] == "Account")
        #expect(json["keyPrefix"] == "001")
        let fields = try #require(json["fields"]?.arrayValue)
        #expect(
            fields.compactMap { $0["name"]?.stringValue } == [
                "Id", "IsDeleted", "Name", "Industry", "BillingState", "AnnualRevenue", "OwnerId",
            ])
        let industry = try #require(fields.first { $0["name"] == "Industry" })
        #expect(industry["type"] == "picklist")
        #expect(
            industry["picklistValues"]?.arrayValue?.compactMap { $0["value"]?.stringValue } == [
                "Technology", "Finance", "Retail",
            ])
        let owner = try #require(fields.first { $0["name"] == "OwnerId" })
        #expect(owner["referenceTo"] == ["User"])
        #expect(owner["relationshipName"] == "Owner")
        #expect(owner["soapType"] == "tns:ID")
        let name = try #require(fields.first { $0["name"] == "Name" })
        #expect(name["nillable"] == false && name["length"] == 255 && name["nameField"] == true)
        #expect(json["childRelationships"]?[0]?["relationshipName"] == "Contacts")
        #expect(json["childRelationships"]?[0]?["field"] == "AccountId")
        #expect(json["urls"]?["rowTemplate"] == "/services/data/v59.0/sobjects/Account/{ID}")
        // Keys alphabetical, like Salesforce's describe.
        let keys = json.objectValue?.map(\.0) ?? []
        #expect(keys == keys.sorted())
        // Unknown objects: 404 NOT_FOUND.
        let unknown = fake.handle(APITestOrg.get("\(base)/Whale/describe", token: token))
        #expect(unknown.status == 404 && unknown.errorCode == "NOT_FOUND")
    }

    @Test func basicInfo() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let json = fake.handle(APITestOrg.get("\(base)/contact", token: token)).json
        #expect(json["objectDescribe"]?["name"] == "Contact")
        #expect(json["recentItems"] == [])
    }

    @Test func createReadUpdateDelete() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        // POST with a trailing slash and a lowercase type, as simple-salesforce sends it.
        let created = fake.handle(
            APITestOrg.send(
                "POST", "\(base)/account/", token: token,
                json: #"{"name": "Whale Co", "Industry": "Finance", "attributes": {"type": "Account"}}"#))
        #expect(created.status == 201)
        let id = try #require(created.json["id"]?.stringValue)
        #expect(id.count == 18 && id.hasPrefix("001"))
        #expect(created.json == .object([("id", .string(id)), ("success", true), ("errors", [])]))

        let read = fake.handle(APITestOrg.get("\(base)/Account/\(id)", token: token)).json
        #expect(
            read["attributes"]
                == .object([("type", "Account"), ("url", .string("/services/data/v59.0/sobjects/Account/\(id)"))]))
        #expect(read["Name"] == "Whale Co")
        #expect(read.objectValue?.first?.0 == "attributes")
        let some = fake.handle(APITestOrg.get("\(base)/Account/\(id)?fields=name,INDUSTRY", token: token)).json
        #expect(some.objectValue?.map(\.0) == ["attributes", "Name", "Industry"])
        let badField = fake.handle(APITestOrg.get("\(base)/Account/\(id)?fields=Nope", token: token))
        #expect(badField.status == 400 && badField.errorCode == "INVALID_FIELD")

        let patched = fake.handle(
            APITestOrg.send("PATCH", "\(base)/Account/\(id)", token: token, json: #"{"BillingState": "WA"}"#))
        #expect(patched.status == 204 && patched.body.isEmpty)
        #expect(fake.handle(APITestOrg.get("\(base)/Account/\(id)", token: token)).json["BillingState"] == "WA")

        let deleted = fake.handle(
            SFRequest(
                method: "DELETE", target: "\(base)/Account/\(id)", headers: [("Authorization", "Bearer \(token)")]))
        #expect(deleted.status == 204 && deleted.body.isEmpty)
        let gone = fake.handle(APITestOrg.get("\(base)/Account/\(id)", token: token))
        #expect(gone.status == 404)
        #expect(
            fake.handle(
                SFRequest(
                    method: "DELETE", target: "\(base)/Account/\(id)", headers: [("Authorization", "Bearer \(token)")])
            ).status == 404)
    }

    @Test func writeErrors() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let notJSON = fake.handle(APITestOrg.send("POST", "\(base)/Account", token: token, json: "{nope"))
        #expect(notJSON.status == 400 && notJSON.errorCode == "JSON_PARSER_ERROR")
        let array = fake.handle(APITestOrg.send("POST", "\(base)/Account", token: token, json: "[1]"))
        #expect(array.status == 400 && array.errorCode == "JSON_PARSER_ERROR")
        let unknownField = fake.handle(
            APITestOrg.send("POST", "\(base)/Account", token: token, json: #"{"Name": "x", "Foo": 1}"#))
        #expect(unknownField.status == 400 && unknownField.errorCode == "INVALID_FIELD")
        let missing = fake.handle(
            APITestOrg.send("POST", "\(base)/Account", token: token, json: #"{"Industry": "Finance"}"#))
        #expect(missing.status == 400 && missing.errorCode == "REQUIRED_FIELD_MISSING")
        let unknownType = fake.handle(APITestOrg.send("POST", "\(base)/Whale", token: token, json: #"{"Name": "x"}"#))
        #expect(unknownType.status == 404 && unknownType.errorCode == "NOT_FOUND")
        let unknownId = fake.handle(APITestOrg.get("\(base)/Account/001000000000zzzAAA", token: token))
        #expect(unknownId.status == 404 && unknownId.errorCode == "NOT_FOUND")
        let wrongType = fake.handle(
            APITestOrg.send("PATCH", "\(base)/Contact/001000000000zzzAAA", token: token, json: "{}"))
        #expect(wrongType.status == 404)
        // Every error is an array of {message, errorCode}.
        for response in [notJSON, array, unknownField, missing, unknownType, unknownId, wrongType] {
            #expect(response.json.arrayValue?.count == 1)
            #expect(response.json[0]?.objectValue?.map(\.0) == ["message", "errorCode"])
        }
    }
}
