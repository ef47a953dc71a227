import CoreMetrics
import NIOConcurrencyHelpers
import Prometheus
import WhaleProtocol

/// The server's metrics through swift-metrics, collected by a Prometheus registry of this server
/// alone (no global bootstrap, so several servers in one test process stay apart) and served at
/// `GET /metrics` in the Prometheus text format.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let connections: CoreMetrics.Meter
    let messagesReceived: CoreMetrics.Counter
    let messagesSent: CoreMetrics.Counter
    let opsApplied: CoreMetrics.Counter
    let mutations: CoreMetrics.Counter
    let ackLatency: CoreMetrics.Timer
    private let factory: PrometheusMetricsFactory
    private let errors: NIOLockedValueBox<[String: CoreMetrics.Counter]> = NIOLockedValueBox([:])

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        // op→ack on the server: from the docChange read to the ack handed to the socket.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1),
        ]
        self.factory = factory
        connections = CoreMetrics.Meter(label: "whalesim_connections", dimensions: [], factory: factory)
        messagesReceived = CoreMetrics.Counter(
            label: "whalesim_messages_received_total", dimensions: [], factory: factory)
        messagesSent = CoreMetrics.Counter(label: "whalesim_messages_sent_total", dimensions: [], factory: factory)
        opsApplied = CoreMetrics.Counter(label: "whalesim_ops_applied_total", dimensions: [], factory: factory)
        mutations = CoreMetrics.Counter(label: "whalesim_mutations_total", dimensions: [], factory: factory)
        ackLatency = CoreMetrics.Timer(label: "whalesim_ack_latency_seconds", dimensions: [], factory: factory)
        for code in ProtocolErrorCode.allCases { _ = counter(for: code.rawValue) }
    }

    /// Counts one refusal by its `error` code (also for the original protocol, which stays silent).
    func error(_ code: ProtocolErrorCode) { counter(for: code.rawValue).increment() }
    /// Counts one refusal of another kind (REST and GraphQL codes).
    func error(_ code: String) { counter(for: code).increment() }

    private func counter(for code: String) -> CoreMetrics.Counter {
        errors.withLockedValue { errors in
            if let counter = errors[code] { return counter }
            let counter = CoreMetrics.Counter(
                label: "whalesim_errors_total", dimensions: [("code", code)], factory: factory)
            errors[code] = counter
            return counter
        }
    }

    /// The Prometheus text exposition.
    func render() -> String { registry.emitToString() }
}
