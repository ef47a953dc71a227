/// A scenario's `script:` section: a schedule the simulator follows exactly instead of drawing a
/// workload from the seed (docs/scripted-scenarios.md). Each step happens at its tick, in file
/// order within a tick; clients connect only when a step says so.
///
/// ```yaml
/// script:
///   delivery: scripted            # ops reach the server at `arrive` steps, broadcasts the client at `receive` steps
///   steps:
///     - {at: 0, client: 0, do: connect}
///     - {at: 10, client: 0, do: edit, position: 0, delete: 0, insert: "x"}
///     - {at: 12, client: 0, do: arrive}
///     - {at: 13, client: 0, do: disconnect}
///     - {at: 20, client: 0, do: connect}
/// ```
public struct ScriptSpec: Hashable, Sendable {
    /// Who decides when a message crosses a link.
    public enum Delivery: String, Hashable, Sendable, CaseIterable {
        /// The scenario's network delays (FIFO links), as in a seeded run.
        case network
        /// FIFO links, but a `docChange` waits at the head of its up link for an `arrive` step of its
        /// client and a `docChangeReturnOps` at the head of its down link for a `receive` step; so
        /// the server applies ops in the scripted order and a client sees them when the script says.
        case scripted
    }

    /// One scripted action of one client.
    public enum Action: Hashable, Sendable {
        case connect
        /// The connection breaks (everything in flight both ways is lost).
        case disconnect(cause: String)
        /// The user replaces `delete` scalars at `position` by `insert` (clamped to the client's text).
        case edit(position: Int, delete: Int, insert: String)
        /// The user selects `anchor`...`head` (a caret when equal; clamped to the client's text).
        case select(anchor: Int, head: Int)
        /// The client's next `docChange` reaches the server (a credit if none is waiting yet).
        case arrive
        /// Broadcasts to the client are delivered until its revision reaches `revision`.
        case receive(revision: Int)
        /// The client's down link is full (`true`) or drained (`false`): the server is told of backpressure.
        case slow(Bool)
        /// The client is cut off (`true`: both links hold their messages, as TCP buffers them) or
        /// reachable again (`false`: what was held is delivered).
        case partition(Bool)
        /// The server dies (`kill -9`: what it wrote survives) or, with `powerLoss`, its machine loses
        /// power (what its storage had not made durable is lost too, ``StorageSync``). Every
        /// connection breaks; the server stays down until a `server-start` step (or the heal).
        case serverCrash(powerLoss: Bool)
        /// The server starts again from what its storage kept. Clients connect at their own steps.
        case serverStart

        /// Whether the step is the server's, not a client's (its ``Step/client`` is ``Step/server``).
        public var isServerStep: Bool {
            switch self {
            case .serverCrash, .serverStart: true
            default: false
            }
        }

        /// The `do:` word of the action.
        public var word: String {
            switch self {
            case .connect: "connect"
            case .disconnect: "disconnect"
            case .edit: "edit"
            case .select: "select"
            case .arrive: "arrive"
            case .receive: "receive"
            case .slow(let on): on ? "slow" : "unslow"
            case .partition(let on): on ? "partition" : "unpartition"
            case .serverCrash(let powerLoss): powerLoss ? "power-loss" : "server-crash"
            case .serverStart: "server-start"
            }
        }

        public static let words = [
            "connect", "disconnect", "edit", "select", "arrive", "receive", "slow", "unslow", "partition",
            "unpartition",
            "server-crash", "power-loss", "server-start",
        ]
        /// The words of the server's steps, which name no client.
        public static let serverWords = ["server-crash", "power-loss", "server-start"]
    }

    /// One step: at tick `at`, client number `client` does `action` (a server step's `client` is
    /// ``Step/server``).
    public struct Step: Hashable, Sendable {
        /// The `client` of a server step (`server-crash`, `power-loss`, `server-start`).
        public static let server = -1
        public var at: Int
        public var client: Int
        public var action: Action
        public init(at: Int, client: Int, action: Action) {
            self.at = at
            self.client = client
            self.action = action
        }
    }

    public var delivery: Delivery = .network
    public var steps: [Step] = []

    public init(delivery: Delivery = .network, steps: [Step] = []) {
        self.delivery = delivery
        self.steps = steps
    }

    /// The tick of the last step (the end of the safety phase).
    public var lastTick: Int { steps.map(\.at).max() ?? 0 }

    /// How many steps are edits.
    public var editCount: Int { steps.filter { if case .edit = $0.action { true } else { false } }.count }

    /// The clients with at least one step, ascending.
    public var activeClients: [Int] {
        var seen: [Bool] = []
        for step in steps where step.client >= 0 {
            if step.client >= seen.count { seen += Array(repeating: false, count: step.client + 1 - seen.count) }
            seen[step.client] = true
        }
        return seen.indices.filter { seen[$0] }
    }

    /// The script without clients `>= clients` and with only its first `edits` edits (what
    /// `--clients` and `--ops` do to a scripted scenario).
    public func restricted(clients: Int, edits: Int?) -> ScriptSpec {
        var out = self
        var kept = 0
        out.steps = steps.filter { step in
            guard step.client < clients else { return false }  // server steps (-1) stay
            if case .edit = step.action, let edits {
                kept += 1
                return kept <= edits
            }
            return true
        }
        return out
    }

    /// The script with only `keep`'s clients, renumbered 0... in order (their steps keep their order).
    public func keepingClients(_ keep: [Int]) -> ScriptSpec {
        var out = self
        out.steps = steps.compactMap { step in
            if step.client == Step.server { return step }
            guard let n = keep.firstIndex(of: step.client) else { return nil }
            var s = step
            s.client = n
            return s
        }
        return out
    }
}
