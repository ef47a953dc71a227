import Foundation

/// FORMAT(): values as the en_US locale shows them (`$1,250,000.00`, `1/15/2024`,
/// `1/15/2024 10:30 AM` in the org's time zone). Text and booleans pass through.
enum Formatting {
    static func format(_ value: JSONValue, _ field: FieldSchema, _ settings: OrgSettings) -> JSONValue {
        switch (field.type, value) {
        case (.currency, _):
            guard let d = value.doubleValue else { return value }
            return .string((d < 0 ? "-$" : "$") + grouped(abs(d), decimals: 2))
        case (.int, _):
            guard let d = value.doubleValue else { return value }
            return .string((d < 0 ? "-" : "") + grouped(abs(d), decimals: 0))
        case (.double, _), (.percent, _):
            guard let d = value.doubleValue else { return value }
            let decimals = d == d.rounded() ? 0 : 2
            return .string(
                (d < 0 ? "-" : "") + grouped(abs(d), decimals: decimals) + (field.type == .percent ? "%" : ""))
        case (.date, .string(let s)):
            guard let days = CivilTime.parseDate(s) else { return value }
            let (y, m, d) = CivilTime.civil(days: days)
            return .string("\(m)/\(d)/\(y)")
        case (.datetime, .string(let s)):
            guard let ms = CivilTime.parseDateTime(s) else { return value }
            let date = Date(timeIntervalSince1970: Double(ms) / 1000)
            let c = settings.calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
            let hour12 = c.hour! % 12 == 0 ? 12 : c.hour! % 12
            let minute = c.minute! < 10 ? "0\(c.minute!)" : "\(c.minute!)"
            return .string("\(c.month!)/\(c.day!)/\(c.year!) \(hour12):\(minute) \(c.hour! < 12 ? "AM" : "PM")")
        default:
            return value
        }
    }

    /// `1234567.891` → `1,234,567.89` (decimals 2).
    static func grouped(_ d: Double, decimals: Int) -> String {
        guard d.isFinite, d < 1e15 else { return JSONValue.javaStyle(d) }
        let scale = decimals == 2 ? 100.0 : 1.0
        let scaled = (d * scale).rounded()
        let whole = Int(scaled / scale)
        let fraction = Int(scaled) - whole * Int(scale)
        let digits = String(whole)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        if decimals == 2 { out += "." + (fraction < 10 ? "0" : "") + String(fraction) }
        return out
    }
}
