import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import WhaleLoad
import WhaleModel
import WhaleProtocol
import WhaleSim

/// What every virtual user of one live run shares: the scenario's live settings, the APIs,
/// the recorder and metrics, and the run's phase. Passed to each user's constructor.
final class RunContext: Sendable {
    let spec: LiveSpec
    let whaler: WhalerAPI
    /// The Whaler API as the users' stores and pages call it: ``whaler`` in a run, memory in a test.
    let network: any WhalerNetworking
    let salesforce: SalesforceAPI?
    let salesforceClientId: String
    let salesforceClientSecret: String
    let metrics: LiveMetrics
    let recorder: LiveRecorder
    let ops = OpRegistry()
    let clock: RunClock
    let mix: WeightedChoice<ActionMix.Action>
    let generator: TextGenerator
    let pasteSize: ClosedRange<Int>
    let initialText: String
    let socketURL: String
    let protocolVersion: ProtocolVersion
    /// Client-side catalog faults on now: the whole-run ones, plus windowed ones while their window is open.
    private let clientFaultsNow: NIOLockedValueBox<FaultSet>
    var clientFaults: FaultSet { clientFaultsNow.withLockedValue { $0 } }
    func setClientFaults(_ f: FaultSet) { clientFaultsNow.withLockedValue { $0 = f } }
    let staleAfterMs = 4_000
    /// Whether any user works on the board (kanban moves, tracking): only they fetch it.
    let usesBoard: Bool
    let clientIndexes = NIOLockedValueBox<[String: Int]>([:])
    /// The scenario's model section when the run drives ModelClients (the server offers
    /// whalesim's GraphQL extensions); nil: notes only, board moves unchecked.
    let modelSpec: ModelSpec?
    /// One copy of each record the model pages receive, shared by every page that shows it.
    let modelInterner = ModelRecordInterner()
    /// The organization's user ids (who cards and tasks may be assigned to).
    let organizationUsers: [String]
    /// Makes ids this run creates (tasks, op ids, connection ids) unique on a server that outlives the run.
    let runTag: String
    /// The loops the users run on with `live.runner-loop: epoll` (empty: NIO's).
    let clientLoops: [EpollClientLoop]
    private let loadOver = NIOLockedValueBox(false)
    private let initialClaimed = NIOLockedValueBox<Set<Int>>([])
    private let logger: @Sendable (String) -> Void
    /// Where the users' note and board sockets come from: real websockets in a run, memory in a test.
    let sockets: NoteSocketFactory
    /// The recorded sessions the users play (nil: the seeded behaviour).
    let replay: ReplayPlan?

    init(
        scenario: Scenario, spec: LiveSpec, whaler: WhalerAPI, salesforce: SalesforceAPI?, salesforceClientId: String,
        salesforceClientSecret: String, metrics: LiveMetrics, recorder: LiveRecorder, socketURL: String,
        clientFaults: FaultSet, modelSpec: ModelSpec?, organizationUsers: [String], runTag: String,
        log: @escaping @Sendable (String) -> Void,
        sockets: NoteSocketFactory = .live, network: (any WhalerNetworking)? = nil, replay: ReplayPlan? = nil
    ) {
        self.replay = replay
        self.sockets = sockets
        self.network = network ?? whaler
        self.modelSpec = modelSpec
        self.organizationUsers = organizationUsers
        self.runTag = runTag
        self.spec = spec
        clientLoops = Self.clientLoops(for: spec)
        self.whaler = whaler
        self.salesforce = salesforce
        self.salesforceClientId = salesforceClientId
        self.salesforceClientSecret = salesforceClientSecret
        self.metrics = metrics
        self.recorder = recorder
        clock = metrics.clock
        mix = scenario.mix.choice
        usesBoard = [ActionMix.Action.moveAccount, .track, .untrack, .assignAccount].contains { scenario.mix[$0] > 0 }
        generator = TextGenerator(alphabet: scenario.alphabet)
        pasteSize = scenario.pasteSize
        initialText = scenario.initialText
        self.socketURL = socketURL
        protocolVersion = scenario.protocolVersion == 1 ? .original : .v2
        clientFaultsNow = NIOLockedValueBox(clientFaults)
        logger = log
    }

    /// The loops a run of `spec` puts its users on (empty: NIO's).
    static func clientLoops(for spec: LiveSpec) -> [EpollClientLoop] {
        spec.runnerLoop == .epoll
            ? EpollClientLoop.shared(NIOSingletons.groupLoopCountSuggestion) : []
    }

    var isLoadOver: Bool { loadOver.withLockedValue { $0 } }
    func endLoad() { loadOver.withLockedValue { $0 = true } }

    /// The first user to find a document empty types the scenario's initial text into it.
    func claimInitialText(_ document: Int) -> Bool { initialClaimed.withLockedValue { $0.insert(document).inserted } }

    func noteContext(token: String, client: Int) -> NoteSession.Context {
        NoteSession.Context(
            socketURL: socketURL, token: token, protocolVersion: protocolVersion, recorder: recorder, metrics: metrics,
            ops: ops, faults: clientFaults, staleAfterMs: staleAfterMs, connections: clientIndexes, runTag: runTag,
            loop: clientLoop(client), sockets: sockets)
    }

    /// The loop client `index`'s task, pauses and note socket run on (`live.runner-loop: epoll`),
    /// spread round-robin; nil on NIO's loops.
    func clientLoop(_ index: Int) -> EpollClientLoop? {
        clientLoops.isEmpty ? nil : clientLoops[index % clientLoops.count]
    }

    func modelContext(token: String) -> ModelPage.Context {
        ModelPage.Context(
            network: network, token: token, socketURL: socketURL, protocolVersion: protocolVersion, recorder: recorder,
            metrics: metrics,
            sockets: sockets)
    }

    func log(_ line: String) { logger(line) }
}
