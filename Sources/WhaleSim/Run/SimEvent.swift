import WhaleProtocol

/// What the run loop can have scheduled. Ties at one tick resolve by scheduling order.
enum SimEvent: Sendable {
    /// The workload's next action for a client.
    case act(client: Int)
    /// The next keystroke of a typing burst.
    case keystroke(client: Int, remaining: Int)
    case deliver(SimNetwork<ClientEnvelopeBox, ServerEnvelopeBox>.Delivery)
    /// A client opens (or reopens) its connection.
    case connect(client: Int)
    /// Nemesis number `index` strikes.
    case strike(nemesis: Int)
    /// The effect of a strike ends.
    /// Partition number `index` (in `Simulation.partitions`) heals. Payloads stay trivial so
    /// the event heap moves plain values (no reference counting on the hot path).
    case endPartition(index: Int)
    case endSlow(client: Int)
    case restartServer
    /// A catalog fault's window opens (`on`) or closes.
    case switchFault(Fault, on: Bool)
    /// A GraphQL request or response (model scenarios) arrives; the call waits in `ModelWorld.calls[slot]`.
    case http(slot: Int)
    /// Step number `step` of the scenario's script.
    case script(step: Int)

    var isWorkloadOrNemesis: Bool {
        switch self {
        case .act, .keystroke, .strike, .endPartition, .endSlow, .switchFault, .script: true
        case .deliver, .connect, .restartServer, .http: false
        }
    }
}
