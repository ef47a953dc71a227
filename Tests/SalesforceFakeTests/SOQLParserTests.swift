import Testing
@testable import SalesforceFake

@Suite struct SOQLParserTests {
    @Test func clausesInOrder() throws {
        let ast = try Parser.parse(
            "SELECT Id, Owner.Name, COUNT(Id) c FROM Account a WHERE a.Name = 'x' GROUP BY Owner.Name HAVING COUNT(Id) > 1 ORDER BY Name DESC NULLS FIRST LIMIT 5 OFFSET 2"
        )
        #expect(ast.from.text == "Account")
        #expect(ast.alias == "a")
        #expect(ast.select.count == 3)
        guard case .field(let path) = ast.select[1] else { Issue.record("expected a path"); return }
        #expect(path.text == "Owner.Name")
        guard case .aggregate(.count, let p?, "c", _) = ast.select[2] else {
            Issue.record("expected COUNT(Id) c"); return
        }
        #expect(p.text == "Id")
        #expect(ast.groupBy.map(\.text) == ["Owner.Name"])
        #expect(ast.orderBy.count == 1 && ast.orderBy[0].descending && ast.orderBy[0].nullsFirst == true)
        #expect(ast.limit == 5 && ast.offset == 2)
        guard case .compare(.aggregate(.count, _, _), .greater, .number("1"), _)? = ast.having else {
            Issue.record("expected HAVING COUNT(Id) > 1"); return
        }
    }

    @Test func conditionsNestAsWritten() throws {
        let ast = try Parser.parse(
            "SELECT Id FROM Account WHERE (NOT Type LIKE 'C%') AND (A = 1 OR B IN ('x', null)) AND C NOT IN (SELECT Id FROM Contact) AND D INCLUDES ('a;b')"
        )
        guard case .and(let parts)? = ast.whereClause, parts.count == 4 else {
            Issue.record("expected four AND-ed parts"); return
        }
        guard case .not(.like(.path(let t), .string("C%", "C%"), _)) = parts[0] else {
            Issue.record("NOT LIKE"); return
        }
        #expect(t.text == "Type")
        guard case .or(let ors) = parts[1], case .inList(_, let values, false, _) = ors[1] else {
            Issue.record("OR with IN"); return
        }
        #expect(values == [.string(value: "x", raw: "x"), .null])
        guard case .inQuery(_, let inner, true, _) = parts[2] else { Issue.record("NOT IN subquery"); return }
        #expect(inner.from.text == "Contact")
        guard case .includes(_, _, false, _) = parts[3] else { Issue.record("INCLUDES"); return }
    }

    @Test func literals() throws {
        let ast = try Parser.parse(
            "SELECT Id FROM X WHERE a = -5 AND b = 2.5 AND c = TRUE AND d = 2024-01-02 AND e = LAST_N_DAYS:3 AND f = null"
        )
        guard case .and(let parts)? = ast.whereClause else { Issue.record("AND"); return }
        let literals: [Literal] = parts.compactMap {
            if case .compare(_, _, let l, _) = $0 { return l } else { return nil }
        }
        #expect(
            literals == [
                .number("-5"), .number("2.5"), .bool(true), .date(CivilTime.days(year: 2024, month: 1, day: 2)),
                .dateLiteral("LAST_N_DAYS", 3), .null,
            ])
    }

    @Test func reservedWordsAreNotNames() {
        #expect(throws: SalesforceError.self) { try Parser.parse("SELECT Id FROM Account WHERE LIMIT = 1") }
        #expect(throws: SalesforceError.self) { try Parser.parse("SELECT Id FROM Account ORDER BY") }
    }
}
