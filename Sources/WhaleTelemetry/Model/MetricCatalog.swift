/// Every metric family whalesim exposes, in one place: the load runner's (`run --listen`,
/// `simulate --seeds --listen`, `conform --listen`) and the reference server's (`serve`'s
/// `/metrics`, which names its families the same way, in `ServerMetrics`). docs/metrics.md is
/// this table in prose; a test keeps the two, and the server's names, in step.
///
/// Every runner series also carries the run's labels (``RunLabels``: scenario, seed, run_id, shard).
public enum MetricCatalog {
    static func latency(_ name: String, _ help: String) -> MetricDescriptor {
        MetricDescriptor(name: name, kind: .histogram, unit: "seconds", help: help)
    }
    static func count(
        _ name: String, _ help: String, _ labels: [String] = [],
        exporter: MetricExporter = .runner
    ) -> MetricDescriptor {
        MetricDescriptor(name: name, kind: .counter, help: help, labelNames: labels, exporter: exporter)
    }

    // MARK: The run's latencies (histograms over ``TelemetryHistogram/latencyBounds``)

    public static let opAck = latency(
        "whalesim_op_ack_seconds",
        "Time from a client sending a note op to the server's ack of it (op→ack).")
    public static let opRemoteApply = latency(
        "whalesim_op_remote_apply_seconds",
        "Time from a client sending a note op to another client applying it (op→remote-apply).")
    public static let converge = latency(
        "whalesim_converge_seconds",
        "Time from the last op on a note to every replica holding the same text (time to converge).")
    public static let connect = latency("whalesim_connect_seconds", "Time to open a client's websocket.")
    public static let login = latency("whalesim_login_seconds", "Time of a client's REST login.")
    public static let graphql = latency("whalesim_graphql_seconds", "Time of a GraphQL request, sent to answered.")
    public static let soql = latency("whalesim_soql_seconds", "Time of a SOQL query to (fake) Salesforce.")

    // MARK: The run's counts

    public static let ops = count("whalesim_ops", "Ops the clients sent (note ops and model mutations).")
    public static let acks = count("whalesim_acks", "Ops the server acknowledged.")
    public static let resends = count("whalesim_resends", "Ops sent again after a reconnect.")
    public static let errors = count("whalesim_errors", "Errors the clients saw, by protocol or HTTP code.", ["code"])
    public static let reconnects = count("whalesim_reconnects", "Websockets a client opened again after losing one.")
    public static let redials = count("whalesim_redials", "Connection attempts that failed and were dialled again.")

    // MARK: The run's state now (gauges)

    public static let clientsConnected = MetricDescriptor(
        name: "whalesim_clients_connected", kind: .gauge,
        help: "Clients whose websocket is open now.")
    public static let runnerLag = MetricDescriptor(
        name: "whalesim_runner_lag_seconds", kind: .gauge, unit: "seconds",
        help: "How late the runner's timers fire (the load generator's own lag, the last second's max).")
    public static let machineBusy = MetricDescriptor(
        name: "whalesim_machine_busy_ratio", kind: .gauge,
        help: "Share of all cores busy in the last second (0 to 1).")
    public static let machineContended = MetricDescriptor(
        name: "whalesim_machine_contended", kind: .gauge,
        help:
            "1 when other processes took the CPU the run needed in the last second (its latencies measure the machine)."
    )
    public static let faultWindowActive = MetricDescriptor(
        name: "whalesim_fault_window_active", kind: .gauge,
        help: "1 while a fault window of this kind is in force, else 0.", labelNames: ["kind"])

    // MARK: The checkers as they stand

    public static let checkerViolations = count(
        "whalesim_checker_violations",
        "Violations a checker has found so far.", ["checker"])
    public static let checkerUnknowns = count(
        "whalesim_checker_unknowns",
        "Cases a checker could not judge so far (e.g. ops in flight at a crash).", ["checker"])

    // MARK: Other commands' progress

    public static let seeds = count("whalesim_seeds", "Seeds `simulate --seeds` has run.")
    public static let seedFailures = count("whalesim_seed_failures", "Seeds whose run a checker found invalid.")
    public static let conformCases = count("whalesim_conform_cases", "Conformance cases run, by outcome.", ["outcome"])

    // MARK: The endpoint itself

    public static let droppedEvents = count(
        "whalesim_telemetry_dropped_events",
        "Dashboard frames dropped because a client read too slowly (its buffer was full).")
    public static let eventClients = MetricDescriptor(
        name: "whalesim_telemetry_event_clients", kind: .gauge,
        help: "Dashboard clients connected to /events.")

    // MARK: The reference server (`serve`), rendered by Sources/WhaleServer/Metrics/ServerMetrics.swift

    public static let serverConnections = MetricDescriptor(
        name: "whalesim_connections", kind: .gauge,
        help: "Websockets open on the server.", exporter: .server)
    public static let serverMessagesReceived = count(
        "whalesim_messages_received", "Websocket messages the server read.",
        exporter: .server)
    public static let serverMessagesSent = count(
        "whalesim_messages_sent", "Websocket messages the server sent.",
        exporter: .server)
    public static let serverOpsApplied = count(
        "whalesim_ops_applied", "Note ops the server applied.", exporter: .server)
    public static let serverMutations = count(
        "whalesim_mutations", "Model mutations the server applied.",
        exporter: .server)
    public static let serverAckLatency = MetricDescriptor(
        name: "whalesim_ack_latency_seconds", kind: .histogram,
        unit: "seconds", help: "Server side of op→ack: from reading a docChange to handing its ack to the socket.",
        exporter: .server)
    public static let serverErrors = count(
        "whalesim_errors", "Refusals the server made, by protocol, REST or GraphQL code.",
        ["code"], exporter: .server)

    /// The runner's families, in exposition order.
    public static let runner: [MetricDescriptor] = [
        opAck, opRemoteApply, converge, connect, login, graphql, soql,
        ops, acks, resends, errors, reconnects, redials,
        clientsConnected, runnerLag, machineBusy, machineContended, faultWindowActive,
        checkerViolations, checkerUnknowns, seeds, seedFailures, conformCases, droppedEvents, eventClients,
    ]

    /// The reference server's families.
    public static let server: [MetricDescriptor] = [
        serverConnections, serverMessagesReceived, serverMessagesSent, serverOpsApplied, serverMutations,
        serverAckLatency, serverErrors,
    ]

    /// Every family, runner first.
    public static let all: [MetricDescriptor] = runner + server
}
