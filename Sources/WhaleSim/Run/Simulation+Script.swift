import WhaleOT
import WhaleProtocol

/// What a scripted run's `delivery: scripted` holds back: per client, the deliveries waiting at
/// the head of each link (FIFO: everything behind a held message waits too), the `arrive` steps
/// not used yet, and the revision up to which `receive` steps let broadcasts through.
struct ScriptState: Sendable {
    typealias Delivery = SimNetwork<ClientEnvelope, ServerEnvelope>.Delivery
    var holds: Bool
    var heldUp: [[Delivery]]
    var heldDown: [[Delivery]]
    var arriveCredit: [Int]
    /// The `arrive` steps not used yet, in step order: ops reach the server in this order across
    /// clients (a credit older than ``ScriptState/orderWindow`` ticks stops holding the others back).
    var creditOrder: [(client: Int, at: SimTime)] = []
    static let orderWindow = 20
    var receiveUpTo: [Int]

    init(clients: Int, holds: Bool) {
        self.holds = holds
        heldUp = Array(repeating: [], count: clients)
        heldDown = Array(repeating: [], count: clients)
        arriveCredit = Array(repeating: 0, count: clients)
        receiveUpTo = Array(repeating: 0, count: clients)
    }
}

extension Simulation {
    /// Schedules every step at its tick (file order within a tick).
    mutating func scheduleScript(_ script: ScriptSpec) {
        scriptState = ScriptState(clients: sessions.count, holds: script.delivery == .scripted)
        for (n, step) in script.steps.enumerated() {
            queue.schedule(.script(step: n), at: step.at)
        }
    }

    /// Carries out step `n`. A step that does not fit the client's state (an edit before the first
    /// join, a position past its text) is adapted or skipped, and a note says so: a script cut from
    /// a live run, or shrunk, may ask for what this run's clients cannot do exactly.
    mutating func scriptStep(_ n: Int) {
        guard let script = scenario.script, n < script.steps.count else { return }
        let step = script.steps[n]
        let c = step.client
        switch step.action {
        case .serverCrash(let powerLoss):
            guard server != nil else {
                record(.note("script: \(step.action.word) skipped (the server is down)")); return
            }
            if powerLoss { losePower() }
            crashServer(restartAfter: nil)
            return
        case .serverStart:
            guard server == nil else { record(.note("script: server-start skipped (the server is up)")); return }
            restartServer(reconnectClients: false)
            return
        default: break
        }
        guard c >= 0, c < sessions.count else { return }
        // A step is a client action: the liveness checker's message-loop bound counts them.
        counts.actions += 1
        defer { pumpAllHeld() }
        switch step.action {
        case .connect:
            if network.isConnected(c) {
                record(.note("script: \(clientIds[c]) connect skipped (already connected)"))
            } else {
                connect(c)
            }
        case .disconnect(let cause):
            if network.isConnected(c) {
                if scriptState?.holds == true { flushUpLink(c) }
                disconnect(c, cause: cause, reconnectAfter: nil)
            } else {
                record(.note("script: \(clientIds[c]) disconnect skipped (not connected)"))
            }
        case .edit(let position, let delete, let insert):
            guard sessions[c].hasJoined else {
                record(.note("script: \(clientIds[c]) edit skipped (the note was never shown: no join yet)"))
                return
            }
            let count = sessions[c].document.count
            let at = min(position, count)
            let width = min(delete, count - at)
            if at != position || width != delete {
                record(.note("script: \(clientIds[c]) edit clamped to \(at)+\(width) (text is \(count) long)"))
            }
            if width == 0, insert.isEmpty { return }
            edit(c, at: at, deleting: width, inserting: insert)
        case .select(let anchor, let head):
            let count = sessions[c].document.count
            clientHandle(c, .localSelection(Selection(anchor: min(anchor, count), head: min(head, count))))
        case .arrive:
            scriptState?.arriveCredit[c] += 1
            scriptState?.creditOrder.append((c, clock.now))
            pumpHeld(c)
        case .receive(let revision):
            // Set, not raised: after a server reset revisions count from 0 again.
            if scriptState != nil { scriptState!.receiveUpTo[c] = revision }
            pumpHeld(c)
        case .slow(let on):
            record(.note("\(clientIds[c]) backpressure \(on ? "on" : "off")"))
            serverHandle(.backpressure(clientIds[c], slow: on), messageId: "")
        case .partition(true):
            network.partition(c)
            record(.note("partition cuts off \(clientIds[c])"))
        case .partition(false):
            endPartition([c])
        case .serverCrash, .serverStart: break  // handled above
        }
    }

    /// Whether `delivery: scripted` holds this delivery back (it is then queued behind its link's
    /// held ones). A `docChange` at the head of an up link waits for an `arrive`; a
    /// `docChangeReturnOps` at the head of a down link waits until a `receive` lets the client's
    /// revision go further.
    mutating func holdForScript(_ d: ScriptState.Delivery) -> Bool {
        guard scriptState?.holds == true else { return false }
        let c = d.client
        dropStaleHolds(c)
        let state = scriptState!
        if d.direction == .up {
            if !state.heldUp[c].isEmpty || mustHoldUp(c, d) {
                scriptState!.heldUp[c].append(d)
                return true
            }
            consumeArrive(c, d)
        } else {
            if !state.heldDown[c].isEmpty || mustHoldDown(c, d) {
                scriptState!.heldDown[c].append(d)
                return true
            }
        }
        return false
    }

    /// Forgets held deliveries a disconnect took off their link (they are contiguous from the head).
    mutating func dropStaleHolds(_ c: Int) {
        if let first = scriptState!.heldUp[c].first, network.frontUp(c)?.sequence != first.sequence {
            scriptState!.heldUp[c] = []
        }
        if let first = scriptState!.heldDown[c].first, network.frontDown(c)?.sequence != first.sequence {
            scriptState!.heldDown[c] = []
        }
    }

    /// The up delivery `d` is a `docChange` at the head of its link with no `arrive` left for it.
    func mustHoldUp(_ c: Int, _ d: ScriptState.Delivery) -> Bool {
        guard let front = network.frontUp(c), front.sequence == d.sequence, case .docChange = front.message.message
        else { return false }
        return scriptState!.arriveCredit[c] == 0 || !isNextInOrder(c)
    }

    /// Whether no other client's earlier, recent `arrive` is still waiting for its op.
    func isNextInOrder(_ c: Int) -> Bool {
        let state = scriptState!
        for entry in state.creditOrder {
            if entry.client == c { return true }
            if entry.at >= clock.now - ScriptState.orderWindow { return false }
        }
        return true
    }

    /// The down delivery `d` is a broadcast at the head of its link and the client is already at the
    /// revision the script lets it reach.
    func mustHoldDown(_ c: Int, _ d: ScriptState.Delivery) -> Bool {
        guard let front = network.frontDown(c), front.sequence == d.sequence,
            case .docChangeReturnOps = front.message.message
        else { return false }
        return sessions[c].revision >= scriptState!.receiveUpTo[c]
    }

    /// Spends an `arrive` on `d` if it is the `docChange` at the head of its link.
    mutating func consumeArrive(_ c: Int, _ d: ScriptState.Delivery) {
        guard let front = network.frontUp(c), front.sequence == d.sequence, case .docChange = front.message.message
        else { return }
        useCredit(c)
    }

    /// Spends one of client `c`'s `arrive`s (its earliest in the order).
    mutating func useCredit(_ c: Int) {
        scriptState!.arriveCredit[c] -= 1
        if let k = scriptState!.creditOrder.firstIndex(where: { $0.client == c }) {
            scriptState!.creditOrder.remove(at: k)
        }
    }

    /// A socket the client closes still delivers what was written to it: before a scripted
    /// disconnect, the up link's messages reach the server now, as far as `arrive` steps let its
    /// ops through (an op no `arrive` lets through is lost with the connection).
    mutating func flushUpLink(_ c: Int) {
        while let front = network.frontUp(c) {
            if case .docChange = front.message.message {
                guard scriptState!.arriveCredit[c] > 0 else { break }
                useCredit(c)
            }
            deliverNow(ScriptState.Delivery(direction: .up, client: c, sequence: front.sequence, time: clock.now))
        }
        scriptState!.heldUp[c] = []
    }

    /// Lets client `c`'s held deliveries through, in order, as far as the script now allows.
    /// A held delivery its link no longer has (a disconnect cleared it) is dropped.
    mutating func pumpHeld(_ c: Int) {
        while let d = scriptState?.heldUp[c].first {
            guard let front = network.frontUp(c), front.sequence == d.sequence else {
                scriptState!.heldUp[c].removeFirst(); continue
            }
            if mustHoldUp(c, d) { break }
            scriptState!.heldUp[c].removeFirst()
            consumeArrive(c, d)
            deliverNow(d)
        }
        while let d = scriptState?.heldDown[c].first {
            guard let front = network.frontDown(c), front.sequence == d.sequence else {
                scriptState!.heldDown[c].removeFirst(); continue
            }
            if mustHoldDown(c, d) { break }
            scriptState!.heldDown[c].removeFirst()
            deliverNow(d)
        }
    }

    /// Pumps every client's held ops: an op that reached the server (or a credit that aged out of
    /// the order window) may let another client's op be next.
    mutating func pumpAllHeld() {
        guard scriptState?.holds == true else { return }
        for c in sessions.indices where !scriptState!.heldUp[c].isEmpty { pumpHeld(c) }
    }

    /// At the heal the script's holds end: everything held is delivered now, in link order.
    mutating func releaseScriptHolds() {
        guard var state = scriptState, state.holds else { return }
        state.holds = false
        scriptState = state
        for c in sessions.indices {
            let held = (scriptState!.heldUp[c], scriptState!.heldDown[c])
            scriptState!.heldUp[c] = []
            scriptState!.heldDown[c] = []
            for d in held.0 { deliverNow(Self.now(d, clock.now)) }
            for d in held.1 { deliverNow(Self.now(d, clock.now)) }
        }
    }

    private static func now(_ d: ScriptState.Delivery, _ t: SimTime) -> ScriptState.Delivery {
        var d = d
        d.time = t
        return d
    }
}
