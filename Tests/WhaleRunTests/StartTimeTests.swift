import Foundation
import Testing
@testable import WhaleRun

/// `--start-at`'s two forms, and what each bad value gets.
@Suite struct StartTimeTests {
    let now = Date(timeIntervalSince1970: 1_795_000_000)

    @Test func anAbsoluteTimeWithItsZoneIsThatMoment() throws {
        let later = now.addingTimeInterval(3600)
        let f = ISO8601DateFormatter()
        let text = f.string(from: later)
        #expect(try StartTime.parse(text, now: now, launched: now).get() == later)
        // 10:20:00.5 at UTC+1 is 09:20:00.5 UTC.
        let offset = try StartTime.parse("2026-12-01T10:20:00.500+01:00", now: now, launched: now).get()
        #expect(offset.timeIntervalSince1970 == 1_796_116_800.5)
    }

    @Test func plusSecondsCountsFromWhalesimsStart() throws {
        let launched = now.addingTimeInterval(-2)
        #expect(try StartTime.parse("+90", now: now, launched: launched).get() == launched.addingTimeInterval(90))
        #expect(try StartTime.parse("+2.5", now: now, launched: launched).get() == launched.addingTimeInterval(2.5))
    }

    @Test func pastMalformedAndOutOfRangeAreRefusedWithTheReason() {
        func why(_ text: String) -> String? {
            if case .failure(let e) = StartTime.parse(text, now: now, launched: now.addingTimeInterval(-10)) {
                return e.description
            }
            return nil
        }
        #expect(why("+5")?.contains("that moment is already past (5.0 s ago") == true)
        #expect(why("2001-01-01T00:00:00Z")?.contains("already past") == true)
        #expect(why("2026-11-28 23:00")?.contains("not a time") == true)
        #expect(why("2026-11-28T23:00:00")?.contains("not a time") == true, "a time without its zone is ambiguous")
        #expect(why("+")?.contains("+SECONDS wants a number") == true)
        #expect(why("+1e9")?.contains("+SECONDS wants a number") == true)
        #expect(why("+nan")?.contains("+SECONDS wants a number") == true)
    }
}
