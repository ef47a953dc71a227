import NIOConcurrencyHelpers
import WhaleProtocol

/// The server's metrics, this server's alone (no global registry, so several servers in one test
/// process stay apart), served at `GET /metrics` in the Prometheus text format. Names and help
/// texts are the ones WhaleTelemetry's `MetricCatalog` lists for the server (a test holds them in step). A handful of
/// counters, one gauge and one histogram need no metrics library: swift-metrics and
/// swift-prometheus were part of what the first run built for them
/// (docs/decisions/0058-reference-server-on-plain-nio.md).
final class ServerMetrics: Sendable {
    let connections = Gauge()
    let messagesReceived = Counter()
    let messagesSent = Counter()
    let opsApplied = Counter()
    let mutations = Counter()
    /// op→ack on the server: from the docChange read to the ack handed to the socket.
    let ackLatency = DurationHistogram(boundsInSeconds: [
        0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
    ])
    private let errors = NIOLockedValueBox<[String: Counter]>([:])

    init() {
        for code in ProtocolErrorCode.allCases { _ = counter(for: code.rawValue) }
    }

    /// Counts one refusal by its `error` code (also for the original protocol, which stays silent).
    func error(_ code: ProtocolErrorCode) { counter(for: code.rawValue).increment() }
    /// Counts one refusal of another kind (REST and GraphQL codes).
    func error(_ code: String) { counter(for: code).increment() }

    private func counter(for code: String) -> Counter {
        errors.withLockedValue { errors in
            if let counter = errors[code] { return counter }
            let counter = Counter()
            errors[code] = counter
            return counter
        }
    }

    /// The Prometheus text exposition (format 0.0.4), families and label values in a fixed order.
    func render() -> String {
        var text = ""
        func family(_ name: String, _ type: String, _ help: String) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        family("whalesim_connections", "gauge", "Websockets open on the server.")
        text += "whalesim_connections \(connections.value)\n"
        for (name, counter, help) in [
            ("whalesim_messages_received_total", messagesReceived, "Websocket messages the server read."),
            ("whalesim_messages_sent_total", messagesSent, "Websocket messages the server sent."),
            ("whalesim_ops_applied_total", opsApplied, "Note ops the server applied."),
            ("whalesim_mutations_total", mutations, "Model mutations the server applied."),
        ] {
            family(name, "counter", help)
            text += "\(name) \(counter.value)\n"
        }
        family("whalesim_errors_total", "counter", "Refusals the server made, by protocol, REST or GraphQL code.")
        for (code, counter) in errors.withLockedValue({ $0.sorted { $0.key < $1.key } }) {
            // Codes are the server's own identifiers (protocol codes, "4001", "graphql"): nothing to escape.
            text += "whalesim_errors_total{code=\"\(code)\"} \(counter.value)\n"
        }
        family(
            "whalesim_ack_latency_seconds", "histogram",
            "Server side of op→ack: from reading a docChange to handing its ack to the socket.")
        text += ackLatency.render(name: "whalesim_ack_latency_seconds")
        return text
    }
}

/// A monotonic count.
final class Counter: Sendable {
    private let count = NIOLockedValueBox(0)
    func increment(by n: Int = 1) { count.withLockedValue { $0 += n } }
    var value: Int { count.withLockedValue { $0 } }
}

/// A value that goes up and down (open sockets; the listener's requests in flight).
final class Gauge: Sendable {
    private let level = NIOLockedValueBox(0)
    func increment() { level.withLockedValue { $0 += 1 } }
    func decrement() { level.withLockedValue { $0 -= 1 } }
    var value: Int { level.withLockedValue { $0 } }
}

/// Durations in fixed buckets (upper bounds in seconds), with their count and sum.
final class DurationHistogram: Sendable {
    private struct State {
        var buckets: [Int]
        var count = 0
        var sumNanoseconds: Int64 = 0
    }
    private let bounds: [Int64]
    private let labels: [String]
    private let state: NIOLockedValueBox<State>

    init(boundsInSeconds: [Double]) {
        bounds = boundsInSeconds.map { Int64(($0 * 1e9).rounded()) }
        labels = boundsInSeconds.map { "\($0)" }
        state = NIOLockedValueBox(State(buckets: Array(repeating: 0, count: boundsInSeconds.count)))
    }

    func recordNanoseconds(_ nanoseconds: Int64) {
        let i = bounds.firstIndex { nanoseconds <= $0 }
        state.withLockedValue { state in
            if let i { state.buckets[i] += 1 }
            state.count += 1
            state.sumNanoseconds += nanoseconds
        }
    }

    /// `_bucket` lines (cumulative, then `+Inf`), `_sum` in seconds and `_count`.
    func render(name: String) -> String {
        let snapshot = state.withLockedValue { $0 }
        var text = ""
        var cumulative = 0
        for (label, n) in zip(labels, snapshot.buckets) {
            cumulative += n
            text += "\(name)_bucket{le=\"\(label)\"} \(cumulative)\n"
        }
        text += "\(name)_bucket{le=\"+Inf\"} \(snapshot.count)\n"
        text += "\(name)_sum \(Double(snapshot.sumNanoseconds) / 1e9)\n"
        text += "\(name)_count \(snapshot.count)\n"
        return text
    }
}
