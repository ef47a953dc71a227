import Foundation

/// `run --start-at`: the moment the load begins, so the pods of a Kubernetes Indexed Job (each a
/// shard) start their load together however long each took to start and set up (issue 46).
///
/// ```
/// whalesim run soak --shard 0/4 --start-at 2026-11-28T23:00:00Z
/// whalesim run soak --start-at +90      # 90 s after this whalesim started
/// ```
public enum StartTime {
    /// When this whalesim started (`+SECONDS` counts from it); `main` reads it first thing.
    public static let launched = Date()

    /// The moment `text` names: an ISO 8601 date and time with its zone (`2026-11-28T23:00:00Z`,
    /// `2026-11-28T23:00:00.250+01:00`), or `+SECONDS` after `launched` (the process's start).
    /// A time already past at `now` is refused: a shard that starts late would load alone.
    public static func parse(_ text: String, now: Date, launched: Date) -> Result<Date, StartTimeError> {
        let target: Date
        if text.hasPrefix("+") {
            guard let seconds = Double(text.dropFirst()), seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
                return .failure(
                    .init("--start-at \(text): +SECONDS wants a number of seconds from 0 to 86400, as in +90"))
            }
            target = launched.addingTimeInterval(seconds)
        } else {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            let fractional = ISO8601DateFormatter()
            fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            guard let date = formatter.date(from: text) ?? fractional.date(from: text) else {
                return .failure(
                    .init(
                        "--start-at \(text): not a time; give an ISO 8601 date and time with its zone "
                            + "(2026-11-28T23:00:00Z) or +SECONDS from whalesim's start"))
            }
            target = date
        }
        guard target > now else {
            let late = String(format: "%.1f", now.timeIntervalSince(target))
            return .failure(
                .init(
                    "--start-at \(text): that moment is already past (\(late) s ago, now \(iso(now))); "
                        + "give a later time, or leave --start-at out to start at once"))
        }
        return .success(target)
    }

    static func iso(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }
}

/// Why a `--start-at` value was refused (exit 64).
public struct StartTimeError: Error, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

extension LiveRun {
    /// With `--start-at`: waits, after the setup and before the load, for the moment asked (an
    /// interruption ends the wait). Setup that ran past it starts the load at once, with a note
    /// of how late, since the pods of one load then began apart.
    func waitForStartTime() async {
        guard let startAt = options.startAt else { return }
        let wait = startAt.timeIntervalSinceNow
        if wait <= 0 {
            note(
                "the load began \(String(format: "%.1f", -wait)) s after --start-at \(StartTime.iso(startAt)): the setup ran past it"
            )
            return
        }
        output("waiting \(String(format: "%.1f", wait)) s for --start-at \(StartTime.iso(startAt))")
        while interrupted == nil {
            let left = startAt.timeIntervalSinceNow
            if left <= 0 { break }
            try? await Task.sleep(for: .milliseconds(Int(min(left, 0.1) * 1000) + 1))
        }
    }
}
