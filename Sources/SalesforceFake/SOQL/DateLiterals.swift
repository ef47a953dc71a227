import Foundation

/// SOQL date literals (`TODAY`, `LAST_N_DAYS:7`, `THIS_QUARTER`...) as day ranges, computed from
/// the org's frozen now in the org's time zone, never from the wall clock. Weeks start on
/// Sunday; fiscal literals use the calendar year (the fixture orgs' fiscal year starts in January).
enum DateLiterals {
    /// A half-open range of days since 1970-01-01: `start ..< end`.
    struct DayRange: Sendable, Equatable {
        var start: Int
        var end: Int
    }

    /// Today's day number in the org's time zone.
    static func today(_ settings: OrgSettings) -> Int {
        let parts = settings.calendar.dateComponents([.year, .month, .day], from: settings.now)
        return CivilTime.days(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    /// Milliseconds since the epoch of local midnight starting `day` in the org's time zone.
    static func startMillis(ofDay day: Int, _ settings: OrgSettings) -> Int {
        let (y, m, d) = CivilTime.civil(days: day)
        let date = settings.calendar.date(from: DateComponents(year: y, month: m, day: d))!
        return Int((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The range of a literal, or nil when `name` (upper-cased) is not a date literal or needs
    /// / refuses an `:n`.
    static func range(_ name: String, n: Int?, settings: OrgSettings) -> DayRange? {
        let today = today(settings)
        let (y, m, _) = CivilTime.civil(days: today)
        func monthStart(_ offset: Int) -> Int {
            let total = y * 12 + (m - 1) + offset
            return CivilTime.days(year: total / 12, month: total % 12 + 1, day: 1)
        }
        let quarterFirstMonth = (m - 1) / 3 * 3  // 0-based month of this quarter's start
        func quarterStart(_ offset: Int) -> Int {
            let total = y * 12 + quarterFirstMonth + offset * 3
            return CivilTime.days(year: total / 12, month: total % 12 + 1, day: 1)
        }
        func yearStart(_ offset: Int) -> Int { CivilTime.days(year: y + offset, month: 1, day: 1) }
        let weekStart = today - ((today + 4) % 7 + 7) % 7  // 1970-01-01 was a Thursday
        let name = name.replacingOccurrences(of: "_FISCAL_", with: "_")
        if let n {
            // Salesforce caps n too; the cap also keeps month and year arithmetic in range.
            guard n >= 0, n <= 100_000 else { return nil }
            switch name {
            case "LAST_N_DAYS": return DayRange(start: today - n, end: today + 1)
            case "NEXT_N_DAYS": return DayRange(start: today + 1, end: today + 1 + n)
            case "N_DAYS_AGO": return DayRange(start: today - n, end: today - n + 1)
            case "LAST_N_WEEKS": return DayRange(start: weekStart - 7 * n, end: weekStart)
            case "NEXT_N_WEEKS": return DayRange(start: weekStart + 7, end: weekStart + 7 + 7 * n)
            case "N_WEEKS_AGO": return DayRange(start: weekStart - 7 * n, end: weekStart - 7 * n + 7)
            case "LAST_N_MONTHS": return DayRange(start: monthStart(-n), end: monthStart(0))
            case "NEXT_N_MONTHS": return DayRange(start: monthStart(1), end: monthStart(1 + n))
            case "N_MONTHS_AGO": return DayRange(start: monthStart(-n), end: monthStart(-n + 1))
            case "LAST_N_QUARTERS": return DayRange(start: quarterStart(-n), end: quarterStart(0))
            case "NEXT_N_QUARTERS": return DayRange(start: quarterStart(1), end: quarterStart(1 + n))
            case "N_QUARTERS_AGO": return DayRange(start: quarterStart(-n), end: quarterStart(-n + 1))
            case "LAST_N_YEARS": return DayRange(start: yearStart(-n), end: yearStart(0))
            case "NEXT_N_YEARS": return DayRange(start: yearStart(1), end: yearStart(1 + n))
            case "N_YEARS_AGO": return DayRange(start: yearStart(-n), end: yearStart(-n + 1))
            default: return nil
            }
        }
        switch name {
        case "YESTERDAY": return DayRange(start: today - 1, end: today)
        case "TODAY": return DayRange(start: today, end: today + 1)
        case "TOMORROW": return DayRange(start: today + 1, end: today + 2)
        case "LAST_WEEK": return DayRange(start: weekStart - 7, end: weekStart)
        case "THIS_WEEK": return DayRange(start: weekStart, end: weekStart + 7)
        case "NEXT_WEEK": return DayRange(start: weekStart + 7, end: weekStart + 14)
        case "LAST_MONTH": return DayRange(start: monthStart(-1), end: monthStart(0))
        case "THIS_MONTH": return DayRange(start: monthStart(0), end: monthStart(1))
        case "NEXT_MONTH": return DayRange(start: monthStart(1), end: monthStart(2))
        case "LAST_90_DAYS": return DayRange(start: today - 90, end: today + 1)
        case "NEXT_90_DAYS": return DayRange(start: today + 1, end: today + 91)
        case "LAST_QUARTER": return DayRange(start: quarterStart(-1), end: quarterStart(0))
        case "THIS_QUARTER": return DayRange(start: quarterStart(0), end: quarterStart(1))
        case "NEXT_QUARTER": return DayRange(start: quarterStart(1), end: quarterStart(2))
        case "LAST_YEAR": return DayRange(start: yearStart(-1), end: yearStart(0))
        case "THIS_YEAR": return DayRange(start: yearStart(0), end: yearStart(1))
        case "NEXT_YEAR": return DayRange(start: yearStart(1), end: yearStart(2))
        default: return nil
        }
    }
}
