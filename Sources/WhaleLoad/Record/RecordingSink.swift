import NIOConcurrencyHelpers
import WhaleSession

/// Where the recording proxies (the Whaler server's and Salesforce's) put what they see: one
/// ``SessionTracker`` shared by every connection (a login's tokens name its session on any of
/// them), the session file written a line per event, the recording's clock.
public final class RecordingSink: Sendable {
    let writer: SessionFileWriter
    private let tracker = NIOLockedValueBox(SessionTracker())
    private let state = NIOLockedValueBox(State())
    private let started = ContinuousClock.now

    struct State {
        var connections = 0
        var unreadable: [String] = []
    }

    public init(writer: SessionFileWriter) { self.writer = writer }

    /// Milliseconds since the recording began.
    func now() -> Int {
        let d = ContinuousClock.now - started
        return Int(d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000)
    }

    func nextConnection() -> String {
        state.withLockedValue {
            $0.connections += 1
            return "c\($0.connections)"
        }
    }

    /// Runs `body` on the shared tracker and writes the events it returns, in order.
    func record(_ body: (inout SessionTracker) -> [SessionEvent]) {
        tracker.withLockedValue { t in
            for e in body(&t) { writer.append(e) }
        }
    }

    func unreadable(_ connection: String, _ reason: String) {
        state.withLockedValue { $0.unreadable.append("\(connection): \(reason)") }
    }

    /// Events written so far.
    public var events: Int { writer.events }
    /// Connections accepted so far.
    public var connections: Int { state.withLockedValue { $0.connections } }
    /// Connections part of whose bytes were not HTTP or websocket frames (forwarded, not recorded), with why.
    public var unreadableConnections: [String] { state.withLockedValue { $0.unreadable } }

    /// Writes the end line and closes the file.
    public func finish() throws { try writer.finish() }
}
