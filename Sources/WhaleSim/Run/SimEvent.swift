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
    case endPartition(clients: [Int])
    case endSlow(client: Int)
    case restartServer

    var isWorkloadOrNemesis: Bool {
        switch self {
        case .act, .keystroke, .strike, .endPartition, .endSlow: true
        case .deliver, .connect, .restartServer: false
        }
    }
}
