import WhaleOT
import WhaleProtocol

/// One deterministic simulated run: seed → options → safety phase (workload, nemeses, fault windows)
/// → heal → liveness phase (the run must go quiet within the tick budget) → cursor probe →
/// final states → checkers. The same scenario, seed and version give the same history hash.
///
/// ```swift
/// let scenario = try BuiltinScenarios.load("convergence-smoke")
/// let result = Simulation.run(scenario, seed: 42)
/// result.verdict            // .valid
/// result.history.hash       // "3f0c…", identical on every replay
/// ```
public struct Simulation {
    let scenario: Scenario
    let seed: UInt64
    /// Every fault the scenario lists, whole run or windowed.
    let faults: FaultSet
    /// The faults on for the whole run: the state machines start with these.
    let wholeRunFaults: FaultSet
    /// The faults on now: the whole-run ones and those whose window is open.
    var activeFaults: FaultSet
    let version: ProtocolVersion
    let clientIds: [ClientID]
    let clientIndex: [ClientID: Int]
    let resourceIds: [String]
    let documentIndex: [String: Int]
    let generator: TextGenerator
    let mix: WeightedChoice<ActionMix.Action>
    /// What a (re)started server runs with; its faults follow the fault windows.
    var serverConfiguration: CollabServer.Configuration

    var clock = SimClock()
    var queue = EventQueue<SimEvent>()
    var network: SimNetwork<ClientEnvelope, ServerEnvelope>
    var sessions: [ClientSession]
    var clientRandom: [SimRandom]
    var nemesisRandom: SimRandom
    var probeRandom: SimRandom
    var server: CollabServer?
    /// What the server wrote (a crash restarts from it: the OS still has it).
    var persisted: [PersistedDocument]
    /// What a power loss keeps: ``persisted`` less ``unsynced`` (Simulation+Storage).
    var durable: [PersistedDocument]
    /// Entries written but not yet durable, in write order, each with the tick its sync ends.
    var unsynced: [(document: Int, entry: PersistEntry, syncAt: Int)] = []
    /// The server revision per document as the history has seen it.
    var serverRevisions: [Int]
    var history: History
    var lastInvoked: [String?]
    var editsLeft: Int
    var counts = SimulationResult.Counts()
    /// The clients each partition cut off, by strike order.
    var partitions: [[Int]] = []
    var healed = false
    /// The Whaler model side, for scenarios with a `model` section.
    var model: ModelWorld?
    /// What a scripted scenario's delivery holds back (nil: not scripted).
    var scriptState: ScriptState?

    /// Runs `scenario` (with its faults) from `seed` and checks the history.
    public static func run(_ scenario: Scenario, seed: UInt64) -> SimulationResult {
        var sim = Simulation(scenario: scenario, seed: seed)
        sim.runPhases()
        let results = Checkers.run(scenario.checkers, on: sim.history)
        sim.counts.historyEvents = sim.history.count
        sim.counts.unknown = max(0, sim.counts.invoked - sim.counts.acknowledged - sim.counts.failed)
        return SimulationResult(
            scenario: scenario, seed: seed, faults: sim.faults.faults, history: sim.history, results: results,
            counts: sim.counts)
    }

    init(scenario: Scenario, seed: UInt64) {
        self.scenario = scenario
        self.seed = seed
        faults = FaultSet(scenario.faults.compactMap(Fault.init(rawValue:)))
        wholeRunFaults = FaultSet(scenario.faultWindows.filter(\.isWholeRun).compactMap { Fault(rawValue: $0.name) })
        activeFaults = wholeRunFaults
        version = scenario.protocolVersion >= 2 ? .v2 : .original
        let width = max(2, String(scenario.clients - 1).count)
        func padded(_ i: Int) -> String {
            let s = String(i); return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        let ids = (0..<scenario.clients).map { ClientID("c\(padded($0))") }
        clientIds = ids
        var index: [ClientID: Int] = [:]
        for (i, id) in ids.enumerated() { index[id] = i }
        clientIndex = index
        resourceIds = (0..<scenario.documents).map { "note-\(padded($0))" }
        var docIndex: [String: Int] = [:]
        for (i, id) in resourceIds.enumerated() { docIndex[id] = i }
        documentIndex = docIndex
        generator = TextGenerator(alphabet: scenario.alphabet)
        mix = scenario.mix.choice
        var initial: [String: String] = [:]
        for id in resourceIds { initial[id] = scenario.initialText }
        serverConfiguration = CollabServer.Configuration(
            serverId: "whalesim-sim", faults: wholeRunFaults, initialTexts: initial)

        // A scripted run draws nothing from its seed: the same script gives the same history
        // whatever the seed (what random draws remain, delays and the cursor probe, use seed 0).
        let root = SimRandom(seed: scenario.script == nil ? seed : 0)
        network = SimNetwork(
            clients: scenario.clients, delay: scenario.delay, queueBound: scenario.queueBound,
            rng: root.derive(1_000_001))
        let clientConfig = ClientSession.Configuration(protocolVersion: version, faults: wholeRunFaults)
        let documents = (0..<scenario.clients).map { $0 % scenario.documents }
        sessions = (0..<scenario.clients).map { i in
            ClientSession(
                clientId: ids[i], userId: "u\(padded(i))", resourceId: "note-\(padded(documents[i]))",
                configuration: clientConfig)
        }
        clientRandom = (0..<scenario.clients).map { root.derive(UInt64($0)) }
        nemesisRandom = root.derive(2_000_002)
        probeRandom = root.derive(3_000_003)
        server = CollabServer(configuration: serverConfiguration)
        persisted = resourceIds.map { PersistedDocument(resourceId: $0, initialText: scenario.initialText) }
        durable = persisted
        serverRevisions = Array(repeating: 0, count: scenario.documents)
        history = History(
            clientNames: clientIds.map(\.rawValue), clientDocuments: documents, documentNames: resourceIds,
            initialTexts: Array(repeating: scenario.initialText, count: scenario.documents),
            protocolVersion: scenario.protocolVersion)
        lastInvoked = Array(repeating: nil, count: scenario.clients)
        editsLeft = scenario.script == nil ? scenario.ops : Int.max
        // Its own random stream: scenarios without a model draw exactly what they drew before.
        model = scenario.model.map { spec in
            ModelWorld(
                scenario: scenario, spec: spec, clientIds: ids, userIds: sessions.map(\.userId), version: version,
                faults: wholeRunFaults, random: root.derive(4_000_004))
        }
    }

    mutating func record(_ event: HistoryEvent) { history.append(event, at: clock.now) }

    mutating func runPhases() {
        // Safety phase: everyone connects, the workload and the nemeses start. Fault windows
        // come first, so one opening at a tick is on before anything else happens then.
        scheduleFaultWindows()
        var safetyEnd = scenario.safetyTicks
        if let script = scenario.script {
            // A script replaces the workload and the nemeses; its last step ends the safety phase.
            scheduleScript(script)
            safetyEnd = script.lastTick
        } else {
            for i in sessions.indices {
                queue.schedule(.connect(client: i), at: 0)
                queue.schedule(.act(client: i), at: 1 + scenario.thinkTime.sample(using: &clientRandom[i]))
            }
            scheduleNemeses()
        }
        while let next = queue.nextTime, next <= safetyEnd, editsLeft > 0 {
            step()
        }
        // Liveness phase: heal everything, stop the workload, require quiescence in budget.
        heal()
        releaseScriptHolds()
        let healedAt = clock.now
        let deadline = healedAt + scenario.livenessBudget
        var quiet = pumpUntilQuiet(deadline: deadline)
        if quiet, scenario.checkers.contains(.cursors) {
            quiet = probeCursors(deadline: deadline)
        }
        record(.quiescence(reached: quiet, ticksAfterHeal: quiet ? clock.now - healedAt : scenario.livenessBudget))
        counts.messages = network.sentCount + (model?.sent ?? 0)
        counts.dropped = network.droppedCount
        record(.traffic(messages: counts.messages, edits: counts.actions, clients: sessions.count))
        recordFinalStates()
        counts.ticks = clock.now
    }

    /// Takes the next event and handles it.
    mutating func step() {
        guard let entry = queue.pop() else { return }
        clock.advance(to: entry.time)
        switch entry.event {
        case .act(let c): act(c)
        case .keystroke(let c, let remaining): keystroke(c, remaining: remaining)
        case .deliver(let delivery): deliver(delivery)
        case .connect(let c): connect(c)
        case .strike(let n): strike(n)
        case .endPartition(let index): endPartition(partitions[index])
        case .endSlow(let c): network.setSlowFactor(c, 1); record(.note("\(clientIds[c]) link back to normal speed"))
        case .restartServer: restartServer()
        case .switchFault(let fault, let on): switchFault(fault, on: on)
        case .http(let slot): httpArrive(slot)
        case .script(let n): scriptStep(n)
        }
    }

    /// Runs until nothing is scheduled and every client is joined and synchronized, or the deadline.
    mutating func pumpUntilQuiet(deadline: SimTime) -> Bool {
        while let next = queue.nextTime, next <= deadline { step() }
        return queue.isEmpty && network.totalInFlight == 0 && server != nil
            && sessions.allSatisfy { $0.connection == .joined && $0.syncState == .synchronized }
            && (model?.isQuiet ?? true)
    }

    mutating func recordFinalStates() {
        for (d, id) in resourceIds.enumerated() {
            if let doc = server?.documents[id] {
                record(
                    .serverFinal(document: d, text: doc.text, revision: doc.revision, historyCount: doc.history.count))
            } else {
                let restored = try? ServerDocument(restoring: persisted[d])
                record(
                    .serverFinal(
                        document: d, text: restored?.text ?? scenario.initialText, revision: restored?.revision ?? 0,
                        historyCount: restored?.history.count ?? 0))
            }
        }
        for (i, s) in sessions.enumerated() {
            let pending = (s.outstanding == nil ? 0 : 1) + (s.buffer == nil ? 0 : 1)
            record(
                .clientFinal(
                    client: i, text: s.text, revision: s.revision, pendingOps: pending,
                    connected: s.connection == .joined))
        }
        recordModelFinals()
    }
}
