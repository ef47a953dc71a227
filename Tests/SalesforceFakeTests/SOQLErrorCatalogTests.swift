import Testing
@testable import SalesforceFake

/// Every query error the engine produces, with its error code, HTTP status and message (the
/// last line; the lines above it are the query, the caret and `ERROR at Row:r:Column:c`).
@Suite struct SOQLErrorCatalogTests {
    static let cases: [(String, String, String)] = [
        ("SELECT Id FORM Account", "MALFORMED_QUERY", "unexpected token: 'FORM'"),
        (
            "SELECT Id FROM Account WHERE Name = 'a' AND Type = 'b' OR Industry = 'c'", "MALFORMED_QUERY",
            "unexpected token: 'OR'"
        ),
        ("SELECT Id FROM", "MALFORMED_QUERY", "unexpected token: <EOF>"),
        (
            #"SELECT Id FROM Account WHERE Name = 'a\qb'"#, "MALFORMED_QUERY",
            #"Invalid string literal 'a\q'. Illegal character sequence '\q' in string literal."#
        ),
        (
            "SELECT Id, Foo FROM Account", "INVALID_FIELD",
            "No such column 'Foo' on entity 'Account'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names."
        ),
        (
            "SELECT Boss.Name FROM Account", "INVALID_FIELD",
            "Didn't understand relationship 'Boss' in field path. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name. Please reference your WSDL or the describe call for the appropriate names."
        ),
        (
            "SELECT Id FROM Foo", "INVALID_TYPE",
            "sObject type 'Foo' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name. Please reference your WSDL or the describe call for the appropriate names."
        ),
        (
            "SELECT (SELECT Id FROM Widgets) FROM Account", "INVALID_TYPE",
            "Didn't understand relationship 'Widgets' in FROM part of query call. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name. Please reference your WSDL or the describe call for the appropriate names."
        ),
        (
            "SELECT Id FROM Account WHERE Name = 5", "INVALID_FIELD",
            "value of filter criterion for field 'Name' must be of type string and should be enclosed in quotes"
        ),
        (
            "SELECT Id FROM Account WHERE AnnualRevenue > '5'", "INVALID_FIELD",
            "value of filter criterion for field 'AnnualRevenue' must be of type double and should not be enclosed in quotes"
        ),
        (
            "SELECT Id FROM Task WHERE ActivityDate = 2024-01-01T00:00:00Z", "INVALID_FIELD",
            "value of filter criterion for field 'ActivityDate' must be of type date and should not be enclosed in quotes"
        ),
        (
            "SELECT Id FROM Account WHERE Description = 'x'", "INVALID_FIELD",
            "field 'Description' can not be filtered in a query call"
        ),
        (
            "SELECT Id FROM Account ORDER BY Description", "INVALID_FIELD",
            "field 'Description' can not be sorted in a query call"
        ),
        ("SELECT AVG(Name) FROM Account", "INVALID_FIELD", "field Name does not support aggregate operator AVG"),
        ("SELECT Id FROM Account WHERE OwnerId = '005'", "INVALID_QUERY_FILTER_OPERATOR", "invalid ID field: 005"),
        ("SELECT Id FROM Account OFFSET 2001", "NUMBER_OUTSIDE_VALID_RANGE", "Maximum SOQL offset allowed is 2000"),
        (
            "SELECT FIELDS(ALL) FROM Account", "MALFORMED_QUERY",
            "The SOQL FIELDS function must have a LIMIT of at most 200"
        ),
        ("SELECT Name, Name FROM Account", "MALFORMED_QUERY", "duplicate field selected: Name"),
        ("SELECT Name FROM Account GROUP BY Industry", "MALFORMED_QUERY", "Field must be grouped or aggregated: Name"),
        (
            "SELECT Industry FROM Account GROUP BY Industry ORDER BY Name", "MALFORMED_QUERY",
            "Ordered field must be grouped or aggregated: Name"
        ),
        (
            "SELECT Description FROM Account GROUP BY Description", "MALFORMED_QUERY",
            "field 'Description' can not be grouped in a query call"
        ),
        ("SELECT Id FROM Account HAVING COUNT(Id) > 1", "MALFORMED_QUERY", "HAVING requires GROUP BY"),
        (
            "SELECT Id, COUNT() FROM Account", "MALFORMED_QUERY",
            "COUNT() must be the only element in the SELECT list and cannot be used with GROUP BY"
        ),
        (
            "SELECT Id FROM Account WHERE COUNT(Id) > 1", "MALFORMED_QUERY",
            "Aggregate functions are not allowed in a WHERE clause; use HAVING"
        ),
        (
            "SELECT Id FROM Account ORDER BY COUNT(Id)", "MALFORMED_QUERY",
            "Aggregate functions in ORDER BY need GROUP BY or an aggregate SELECT"
        ),
        (
            "SELECT Id, (SELECT Id FROM Contacts OFFSET 1) FROM Account", "MALFORMED_QUERY",
            "OFFSET is not supported in child relationship queries"
        ),
        (
            "SELECT Id FROM Account WHERE Name IN (SELECT AccountId FROM Contact)", "MALFORMED_QUERY",
            "Semi-join and anti-join left operands must be an Id or a reference field: Name"
        ),
        (
            "SELECT Id FROM Account WHERE Id IN (SELECT Id, Name FROM Contact)", "MALFORMED_QUERY",
            "A semi-join or anti-join subquery must select exactly one Id or reference field"
        ),
        (
            "SELECT Id FROM Account WHERE Name LIKE 5", "INVALID_FIELD",
            "value of filter criterion for field 'Name' must be of type string and should be enclosed in quotes"
        ),
        (
            "SELECT Id FROM Account WHERE Regions__c INCLUDES (5)", "INVALID_FIELD",
            "value of filter criterion for field 'Regions__c' must be of type string and should be enclosed in quotes"
        ),
        (
            "SELECT What.Industry FROM Task", "INVALID_FIELD",
            "No such column 'Industry' on entity 'Name'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names."
        ),
        (
            "SELECT Id FROM Account WHERE CreatedDate = NEXT_N_DAYS", "MALFORMED_QUERY",
            "unexpected token: 'NEXT_N_DAYS'"
        ),
        (
            "SELECT TYPEOF What WHEN Account THEN Name END FROM Task", "MALFORMED_QUERY",
            "TYPEOF is not supported by this fake Salesforce"
        ),
        (
            "SELECT Id FROM Account WITH USER_MODE FOR UPDATE", "MALFORMED_QUERY",
            "FOR UPDATE is not supported by this fake Salesforce"
        ),
        (
            "SELECT Id FROM Account UPDATE TRACKING", "MALFORMED_QUERY",
            "UPDATE TRACKING is not supported by this fake Salesforce"
        ),
    ]

    @Test(arguments: cases)
    func errorCodeStatusAndMessage(soql: String, code: String, message: String) {
        let error = queryError(soql)
        #expect(error?.errorCode == code, "\(soql)")
        #expect(error?.httpStatus == 400)
        #expect(headline(error) == message, "\(soql)")
        #expect(error?.message.contains("ERROR at Row:1:Column:") == true)
    }
}
