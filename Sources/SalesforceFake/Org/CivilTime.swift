/// Dates and datetimes as Salesforce serializes them, converted without Foundation so 100k-row
/// filters stay fast: a date is days since 1970-01-01, a datetime milliseconds since the epoch (UTC).
enum CivilTime {
    /// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's days_from_civil).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// (year, month, day) of days since 1970-01-01.
    static func civil(days z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Parses `YYYY-MM-DD`; nil if malformed or not a real day.
    static func parseDate(_ text: String) -> Int? {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
            let y = number(b, 0, 4), let m = number(b, 5, 2), let d = number(b, 8, 2),
            (1...12).contains(m), d >= 1, d <= daysInMonth(year: y, month: m)
        else { return nil }
        return days(year: y, month: m, day: d)
    }

    /// Parses `YYYY-MM-DDThh:mm:ss[.fff](Z|±hhmm|±hh:mm)`; nil if malformed.
    static func parseDateTime(_ text: String) -> Int? {
        let b = Array(text.utf8)
        guard b.count >= 20, b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
            let day = parseDate(String(decoding: b[0..<10], as: UTF8.self)),
            let hh = number(b, 11, 2), let mm = number(b, 14, 2), let ss = number(b, 17, 2),
            hh < 24, mm < 60, ss < 60
        else { return nil }
        var i = 19
        var millis = 0
        if b[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < b.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i]) {
                if digits < 3 { millis = millis * 10 + Int(b[i] - UInt8(ascii: "0")) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { millis *= 10 }
        }
        guard i < b.count else { return nil }
        var offsetMinutes = 0
        if b[i] == UInt8(ascii: "Z") {
            i += 1
        } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let oh = number(b, i, 2) else { return nil }
            i += 2
            if i < b.count, b[i] == UInt8(ascii: ":") { i += 1 }
            guard let om = number(b, i, 2) else { return nil }
            i += 2
            offsetMinutes = sign * (oh * 60 + om)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let seconds = day * 86400 + hh * 3600 + mm * 60 + ss - offsetMinutes * 60
        return seconds * 1000 + millis
    }

    /// `2024-01-15`.
    static func formatDate(_ days: Int) -> String {
        let (y, m, d) = civil(days: days)
        return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2)
    }

    /// `2024-01-15T10:30:00.000+0000`, the form Salesforce returns.
    static func formatDateTime(_ millis: Int) -> String {
        let seconds = floorDiv(millis, 1000)
        let ms = millis - seconds * 1000
        let day = floorDiv(seconds, 86400)
        let rest = seconds - day * 86400
        return formatDate(day) + "T" + pad(rest / 3600, 2) + ":" + pad(rest / 60 % 60, 2) + ":" + pad(rest % 60, 2)
            + "." + pad(ms, 3) + "+0000"
    }

    static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

    private static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    private static func number(_ b: [UInt8], _ at: Int, _ count: Int) -> Int? {
        guard at + count <= b.count else { return nil }
        var n = 0
        for i in at..<(at + count) {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i]) else { return nil }
            n = n * 10 + Int(b[i] - UInt8(ascii: "0"))
        }
        return n
    }
}
