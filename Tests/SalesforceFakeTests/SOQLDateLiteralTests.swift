import Foundation
import Testing
@testable import SalesforceFake

/// The small org's frozen now is 2024-06-14T17:00:00Z, a Friday, 10:00 in America/Los_Angeles.
@Suite struct SOQLDateLiteralTests {
    func names(_ soql: String) throws -> [String?] { try query(soql).strings("Name") }
    func subjects(_ soql: String) throws -> [String?] { try query(soql).strings("Subject") }

    @Test func todayAndYesterdayUseTheOrgTimeZone() throws {
        // Globex was created at 06:30 UTC on the 14th: 23:30 on the 13th in Los Angeles.
        #expect(try names("SELECT Name FROM Account WHERE CreatedDate = TODAY") == ["Acme Corporation"])
        #expect(try names("SELECT Name FROM Account WHERE CreatedDate = YESTERDAY") == ["Globex Finance"])
        #expect(try names("SELECT Name FROM Account WHERE CreatedDate > TODAY") == ["Dunder Mifflin"])
        #expect(try subjects("SELECT Subject FROM Task WHERE ActivityDate = TODAY") == ["Send proposal"])
        #expect(try subjects("SELECT Subject FROM Task WHERE ActivityDate = TOMORROW") == [])
    }

    @Test func lastAndNextNDays() throws {
        #expect(
            try names("SELECT Name FROM Account WHERE CreatedDate = LAST_N_DAYS:1") == [
                "Acme Corporation", "Globex Finance",
            ])
        #expect(
            try subjects("SELECT Subject FROM Task WHERE ActivityDate = LAST_N_DAYS:7") == [
                "Call Alice about renewal", "Send proposal", "Intro email",
            ])
        #expect(
            try subjects("SELECT Subject FROM Task WHERE ActivityDate = NEXT_N_DAYS:7") == [
                "Follow up lead", "Demo for Globex",
            ])
        #expect(try subjects("SELECT Subject FROM Task WHERE ActivityDate = N_DAYS_AGO:1") == ["Intro email"])
    }

    @Test func weeksMonthsQuartersYears() throws {
        #expect(
            try names("SELECT Name FROM Account WHERE CreatedDate = THIS_WEEK") == [
                "Acme Corporation", "Globex Finance", "Initech",
            ])
        #expect(try names("SELECT Name FROM Account WHERE CreatedDate = LAST_WEEK") == ["Vandelay Industries"])
        #expect(
            try names("SELECT Name FROM Account WHERE CreatedDate = THIS_MONTH") == [
                "Acme Corporation", "Globex Finance", "Initech", "Vandelay Industries", "Dunder Mifflin",
            ])
        #expect(
            try names("SELECT Name FROM Account WHERE CreatedDate = LAST_MONTH") == [
                "Umbrella Labs", "Tyrell Manufacturing", "Nakatomi Trading",
            ])
        #expect(try names("SELECT Name FROM Account WHERE CreatedDate = LAST_YEAR") == ["Hooli"])
        #expect(try query("SELECT Id FROM Account WHERE CreatedDate = THIS_YEAR").totalSize == 19)
        #expect(try query("SELECT Id FROM Account WHERE CreatedDate = THIS_QUARTER").totalSize == 10)
        #expect(try query("SELECT Id FROM Opportunity WHERE CloseDate = NEXT_QUARTER").totalSize == 2)
        #expect(try query("SELECT Id FROM Opportunity WHERE CloseDate = THIS_FISCAL_YEAR").totalSize == 6)
        #expect(try query("SELECT Id FROM Opportunity WHERE CloseDate < LAST_N_MONTHS:1").totalSize == 1)
    }

    @Test func rangesOnOneSide() throws {
        // >= TODAY starts at local midnight; <= YESTERDAY ends at local midnight.
        #expect(
            try names("SELECT Name FROM Account WHERE CreatedDate >= TODAY") == ["Acme Corporation", "Dunder Mifflin"])
        #expect(try query("SELECT Id FROM Account WHERE CreatedDate <= YESTERDAY").totalSize == 18)
        #expect(try query("SELECT Id FROM Account WHERE CreatedDate != TODAY").totalSize == 19)
    }

    @Test func rangesComputedFromTheFrozenNow() {
        let settings = FixtureSupport.shared.settings
        let today = CivilTime.days(year: 2024, month: 6, day: 14)
        #expect(DateLiterals.today(settings) == today)
        #expect(DateLiterals.range("THIS_WEEK", n: nil, settings: settings) == .init(start: today - 5, end: today + 2))
        #expect(
            DateLiterals.range("LAST_90_DAYS", n: nil, settings: settings) == .init(start: today - 90, end: today + 1))
        #expect(
            DateLiterals.range("NEXT_N_YEARS", n: 2, settings: settings)
                == .init(
                    start: CivilTime.days(year: 2025, month: 1, day: 1),
                    end: CivilTime.days(year: 2027, month: 1, day: 1)))
        #expect(DateLiterals.range("TODAY", n: 3, settings: settings) == nil)
        #expect(DateLiterals.startMillis(ofDay: today, settings) == CivilTime.parseDateTime("2024-06-14T07:00:00Z"))
    }
}
