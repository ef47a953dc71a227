import Testing
@testable import SalesforceFake

@Suite struct SOQLLexerTests {
    func kinds(_ soql: String) throws -> [Token.Kind] { try Lexer.tokenize(soql).map(\.kind) }

    @Test func splitsIdentifiersSymbolsAndLiterals() throws {
        let tokens = try Lexer.tokenize("SELECT Id, Owner.Name FROM Account WHERE x >= 10.5 AND y <> 'a'")
        #expect(
            tokens.map(\.text) == [
                "SELECT", "Id", ",", "Owner", ".", "Name", "FROM", "Account", "WHERE", "x", ">=", "10.5", "AND", "y",
                "!=", "a", "",
            ])
        #expect(tokens[11].kind == .number)
        #expect(tokens[15].kind == .string)
        #expect(tokens.last?.kind == .end)
        #expect(tokens[7].offset == 27)
    }

    @Test func decodesStringEscapesButKeepsRawForLike() throws {
        let t = try Lexer.tokenize(#"'it\'s \\ 50\% a\_b \n \u00e9'"#)[0]
        #expect(t.text == "it's \\ 50% a_b \n é")
        #expect(t.raw == #"it\'s \\ 50\% a\_b \n \u00e9"#)
    }

    @Test func datesAndDateTimes() throws {
        #expect(try kinds("2024-01-15") == [.date(CivilTime.days(year: 2024, month: 1, day: 15)), .end])
        let ms = CivilTime.parseDateTime("2024-01-15T10:30:00Z")!
        #expect(try kinds("2024-01-15T10:30:00Z") == [.dateTime(ms), .end])
        #expect(try kinds("2024-01-15T12:30:00+02:00") == [.dateTime(ms), .end])
        #expect(try kinds("2024-01-15T10:30:00.000+0000") == [.dateTime(ms), .end])
    }

    @Test func rejectsBadEscape() {
        #expect(throws: SalesforceError.self) { try Lexer.tokenize(#"'a\qb'"#) }
        let error = queryError(#"SELECT Id FROM Account WHERE Name = 'a\qb'"#)
        #expect(error?.errorCode == "MALFORMED_QUERY")
        #expect(headline(error) == #"Invalid string literal 'a\q'. Illegal character sequence '\q' in string literal."#)
    }

    @Test func rejectsUnterminatedStringAndStrayCharacters() {
        let error = queryError("SELECT Id FROM Account WHERE Name = 'abc")
        #expect(headline(error) == "unexpected token: ''abc'")
        let stray = queryError("SELECT Id FROM Account WHERE Name = #")
        #expect(headline(stray) == "unexpected token: '#'")
        let badDate = queryError("SELECT Id FROM Account WHERE CreatedDate > 2024-13-45")
        #expect(headline(badDate) == "unexpected token: '2024-13-45'")
    }
}
