/// A duration as scenarios and the CLI write it: a number and a unit, `500ms`, `30s`, `2m`. One reader
/// for both, so a scenario's `duration: 90s` and `run --duration 90s` always mean the same.
public enum DurationText {
    /// What a text says: milliseconds (not yet rounded or bounded), or why it is not a duration.
    public enum Parsed: Equatable, Sendable {
        case milliseconds(Double)
        case noUnit
        case notANumber
    }

    public static func parse(_ text: String) -> Parsed {
        var number = Substring(text)
        let scale: Double
        if number.hasSuffix("ms") {
            number.removeLast(2); scale = 1
        } else if number.hasSuffix("s") {
            number.removeLast(); scale = 1000
        } else if number.hasSuffix("m") {
            number.removeLast(); scale = 60_000
        } else {
            return .noUnit
        }
        guard let v = Double(number), v.isFinite, v >= 0 else { return .notANumber }
        return .milliseconds(v * scale)
    }
}
