import Testing
@testable import SalesforceFake

/// Every bad query gets Salesforce's error code and a message pointing at the offending token.
@Suite struct SOQLErrorTests {
    @Test func misspelledFromPointsAtTheToken() {
        let error = queryError("SELECT Id FORM Account")
        #expect(error?.errorCode == "MALFORMED_QUERY")
        #expect(error?.httpStatus == 400)
        #expect(
            error?.message
                == "\nSELECT Id FORM Account\n          ^\nERROR at Row:1:Column:11\nunexpected token: 'FORM'")
    }

    @Test func rowAndColumnOnLaterLines() {
        let error = queryError("SELECT Id\nFROM Account\nWHERE Name = 'x' ORDER Name")
        #expect(
            error?.message
                == "\nWHERE Name = 'x' ORDER Name\n                       ^\nERROR at Row:3:Column:24\nunexpected token: 'Name'"
        )
    }

    @Test func unknownField() {
        let error = queryError("SELECT Id, Foo FROM Account")
        #expect(error?.errorCode == "INVALID_FIELD")
        #expect(
            error?.message.contains(
                "ERROR at Row:1:Column:12\nNo such column 'Foo' on entity 'Account'. If you are attempting to use a custom field"
            ) == true)
    }

    @Test func unknownFieldOnParent() {
        let error = queryError("SELECT Owner.Foo FROM Account")
        #expect(headline(error)?.hasPrefix("No such column 'Foo' on entity 'User'.") == true)
    }

    @Test func unknownRelationship() {
        let error = queryError("SELECT Boss.Name FROM Account")
        #expect(error?.errorCode == "INVALID_FIELD")
        #expect(headline(error)?.hasPrefix("Didn't understand relationship 'Boss' in field path.") == true)
    }

    @Test func unknownObject() {
        let error = queryError("SELECT Id FROM Foo")
        #expect(error?.errorCode == "INVALID_TYPE")
        #expect(headline(error)?.hasPrefix("sObject type 'Foo' is not supported.") == true)
        #expect(error?.message.contains("Column:16") == true)
    }

    @Test func unknownChildRelationship() {
        let error = queryError("SELECT Id, (SELECT Id FROM Widgets) FROM Account")
        #expect(error?.errorCode == "INVALID_TYPE")
        #expect(
            headline(error)?.hasPrefix("Didn't understand relationship 'Widgets' in FROM part of query call.") == true)
    }

    @Test func mixingAndWithOrNeedsParentheses() {
        let error = queryError("SELECT Id FROM Account WHERE Name = 'a' AND Industry = 'b' OR BillingState = 'CA'")
        #expect(error?.errorCode == "MALFORMED_QUERY")
        #expect(headline(error) == "unexpected token: 'OR'")
    }

    @Test func missingPiecesAndTrailingTokens() {
        #expect(headline(queryError("SELECT FROM Account")) == "unexpected token: 'FROM'")
        #expect(headline(queryError("SELECT Id FROM")) == "unexpected token: <EOF>")
        #expect(headline(queryError("SELECT Id FROM Account WHERE")) == "unexpected token: <EOF>")
        #expect(headline(queryError("SELECT Id FROM Account LIMIT 5 extra")) == "unexpected token: 'extra'")
        #expect(headline(queryError("SELECT Id FROM Account LIMIT x")) == "unexpected token: 'x'")
        #expect(headline(queryError("")) == "unexpected token: <EOF>")
    }

    @Test func wrongLiteralTypes() {
        let text = queryError("SELECT Id FROM Account WHERE Name = 5")
        #expect(text?.errorCode == "INVALID_FIELD")
        #expect(
            headline(text)
                == "value of filter criterion for field 'Name' must be of type string and should be enclosed in quotes")
        let number = queryError("SELECT Id FROM Account WHERE NumberOfEmployees = '5'")
        #expect(
            headline(number)
                == "value of filter criterion for field 'NumberOfEmployees' must be of type integer and should not be enclosed in quotes"
        )
        let date = queryError("SELECT Id FROM Account WHERE CreatedDate > 2024-01-01")
        #expect(
            headline(date)
                == "value of filter criterion for field 'CreatedDate' must be of type dateTime and should not be enclosed in quotes"
        )
        let bool = queryError("SELECT Id FROM User WHERE IsActive = 'true'")
        #expect(
            headline(bool)
                == "value of filter criterion for field 'IsActive' must be of type boolean and should not be enclosed in quotes"
        )
    }

    @Test func invalidIdLiteral() {
        let error = queryError("SELECT Id FROM Account WHERE OwnerId = 'nope'")
        #expect(error?.errorCode == "INVALID_QUERY_FILTER_OPERATOR")
        #expect(headline(error) == "invalid ID field: nope")
    }

    @Test func unknownDateLiteral() {
        #expect(
            headline(queryError("SELECT Id FROM Account WHERE CreatedDate = LAST_FORTNIGHT"))
                == "unexpected token: 'LAST_FORTNIGHT'")
        #expect(headline(queryError("SELECT Id FROM Account WHERE Name = TODAY")) == "unexpected token: 'TODAY'")
    }

    @Test func offsetAboveTheCap() {
        let error = queryError("SELECT Id FROM Account LIMIT 10 OFFSET 2001")
        #expect(error?.errorCode == "NUMBER_OUTSIDE_VALID_RANGE")
        #expect(headline(error) == "Maximum SOQL offset allowed is 2000")
    }

    @Test func fieldsAllNeedsSmallLimit() {
        #expect(
            headline(queryError("SELECT FIELDS(ALL) FROM Account"))
                == "The SOQL FIELDS function must have a LIMIT of at most 200")
        #expect(
            headline(queryError("SELECT FIELDS(CUSTOM) FROM Account LIMIT 201"))
                == "The SOQL FIELDS function must have a LIMIT of at most 200")
    }

    @Test func duplicateField() {
        #expect(headline(queryError("SELECT Id, name, Name FROM Account")) == "duplicate field selected: Name")
    }

    @Test func aggregateRules() {
        #expect(
            headline(queryError("SELECT Name, COUNT(Id) FROM Account GROUP BY Industry"))
                == "Field must be grouped or aggregated: Name")
        #expect(
            headline(queryError("SELECT Description FROM Account GROUP BY Description"))
                == "field 'Description' can not be grouped in a query call")
        #expect(
            headline(queryError("SELECT SUM(Name) FROM Account"))
                == "field Name does not support aggregate operator SUM")
        #expect(
            headline(queryError("SELECT Id, COUNT() FROM Account"))
                == "COUNT() must be the only element in the SELECT list and cannot be used with GROUP BY")
        #expect(
            headline(queryError("SELECT Id FROM Account WHERE COUNT(Id) > 1"))
                == "Aggregate functions are not allowed in a WHERE clause; use HAVING")
        #expect(
            headline(queryError("SELECT Industry FROM Account GROUP BY Industry ORDER BY Name"))
                == "Ordered field must be grouped or aggregated: Name")
    }

    @Test func unsupportedClausesAreRejectedNotIgnored() {
        #expect(
            headline(queryError("SELECT TYPEOF What WHEN Account THEN Name END FROM Task"))
                == "TYPEOF is not supported by this fake Salesforce")
        #expect(
            headline(queryError("SELECT Id FROM Account USING SCOPE mine"))
                == "USING SCOPE mine is not supported by this fake Salesforce")
        #expect(
            headline(queryError("SELECT Id FROM Account FOR UPDATE"))
                == "FOR UPDATE is not supported by this fake Salesforce")
        #expect(
            headline(queryError("SELECT Id FROM Account WITH DATA CATEGORY Geo__c AT usa__c"))
                == "WITH DATA is not supported by this fake Salesforce")
        #expect(
            headline(queryError("SELECT Industry FROM Account GROUP BY ROLLUP(Industry)"))
                == "GROUP BY ROLLUP is not supported by this fake Salesforce")
        #expect(
            headline(queryError("SELECT convertCurrency(AnnualRevenue) FROM Account"))
                == "convertCurrency() is not supported by this fake Salesforce")
        #expect(
            headline(queryError("SELECT Id FROM Account WHERE Name = :name"))
                == "Bind variable is not supported by this fake Salesforce")
        #expect(
            headline(queryError("SELECT Id FROM Account WHERE CALENDAR_YEAR(CreatedDate) = 2024"))
                == "CALENDAR_YEAR() in a condition is not supported by this fake Salesforce")
    }

    @Test func harmlessClausesAreAccepted() throws {
        let n = try query("SELECT Id FROM Account").totalSize
        #expect(try query("SELECT Id FROM Account USING SCOPE Everything").totalSize == n)
        #expect(try query("SELECT Id FROM Account WITH SECURITY_ENFORCED").totalSize == n)
        #expect(try query("SELECT Id FROM Account FOR VIEW").totalSize == n)
        #expect(try query("SELECT Id FROM Account FOR REFERENCE").totalSize == n)
    }

    @Test func operatorsOnTheWrongFieldTypes() {
        #expect(
            headline(queryError("SELECT Id FROM Account WHERE NumberOfEmployees LIKE '1%'"))
                == "invalid operator on field NumberOfEmployees: LIKE applies to text fields only")
        #expect(
            headline(queryError("SELECT Id FROM Account WHERE Industry INCLUDES ('Technology')"))
                == "INCLUDES and EXCLUDES apply to multi-select picklist fields only: Industry")
        #expect(headline(queryError("SELECT Id FROM Account WHERE Name > null")) == "invalid operator on null: >")
    }

    @Test func jsonBodyOfAnError() {
        let error = SalesforceError.invalidSessionId()
        #expect(error.httpStatus == 401)
        #expect(
            error.json.serialized() == #"[{"message":"Session expired or invalid","errorCode":"INVALID_SESSION_ID"}]"#)
        #expect(SalesforceError.requestLimitExceeded().httpStatus == 403)
        #expect(SalesforceError.unknownException().httpStatus == 500)
        #expect(SalesforceError.queryTimeout().errorCode == "QUERY_TIMEOUT")
        #expect(SalesforceError.invalidQueryLocator().errorCode == "INVALID_QUERY_LOCATOR")
        #expect(SalesforceError.notFound().httpStatus == 404)
    }
}
