import Foundation

/// Where `whalesim simulate --seeds N` is: seeds done, failures so far, speed and time left.
/// ``bar(width:)`` is the one-line bar a terminal redraws in place; ``line`` the plain text
/// a log gets now and then. Pure: the same figures give the same text.
///
/// ```swift
/// SeedProgress(done: 412, total: 1000, failures: 2, elapsedSeconds: 10.7).bar()
/// // [#########···········]  412/1000 · 2 failed · 38.5 seeds/s · 15 s left
/// ```
public struct SeedProgress: Sendable, Equatable {
    public var done: Int
    public var total: Int
    public var failures: Int
    public var elapsedSeconds: Double

    public init(done: Int, total: Int, failures: Int, elapsedSeconds: Double) {
        self.done = done
        self.total = total
        self.failures = failures
        self.elapsedSeconds = elapsedSeconds
    }

    /// Seeds per second so far; nil before the first seed is done.
    public var rate: Double? {
        guard done > 0, elapsedSeconds > 0 else { return nil }
        return Double(done) / elapsedSeconds
    }

    /// Seconds left at the rate so far; nil while the rate is unknown.
    public var remainingSeconds: Double? {
        guard let rate, rate > 0 else { return nil }
        return Double(max(0, total - done)) / rate
    }

    /// `[####······] done/total · F failed · R seeds/s · T left`, the bar `width` cells wide.
    public func bar(width: Int = 20) -> String {
        let cells = max(1, width)
        let fraction = total > 0 ? min(1, max(0, Double(done) / Double(total))) : 0
        let filled = Int((fraction * Double(cells)).rounded(.down))
        let digits = String(total).count
        let count = String(repeating: " ", count: max(0, digits - String(done).count)) + "\(done)/\(total)"
        return "[" + String(repeating: "#", count: filled) + String(repeating: "·", count: cells - filled) + "] "
            + count + " · " + details
    }

    /// `  [done/total] F failed, R seeds/s, T left`: the plain periodic line.
    public var line: String {
        "  [\(done)/\(total)] " + details.replacingOccurrences(of: " · ", with: ", ")
    }

    private var details: String {
        var parts = ["\(failures) failed"]
        parts.append(rate.map { Self.rateText($0) + " seeds/s" } ?? "– seeds/s")
        if done >= total {
            parts.append("done in " + Self.duration(elapsedSeconds))
        } else {
            parts.append(remainingSeconds.map { Self.duration($0) + " left" } ?? "time left unknown")
        }
        return parts.joined(separator: " · ")
    }

    static func rateText(_ r: Double) -> String {
        r >= 100 ? String(Int(r.rounded())) : String(format: "%.1f", r)
    }

    /// `45 s`, `3 min 05 s`, `2 h 07 min`.
    public static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min " + String(format: "%02d", s % 60) + " s" }
        return "\(s / 3600) h " + String(format: "%02d", (s % 3600) / 60) + " min"
    }
}
