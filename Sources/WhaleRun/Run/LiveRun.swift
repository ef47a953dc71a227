import Foundation
import NIOConcurrencyHelpers
import WhaleEmbedded
import WhaleLoad
import WhaleModel
import WhaleOT
import WhaleProtocol
import WhaleReports
import WhaleServer
import WhaleSim
import SalesforceHTTP

/// One live run of a scenario: targets up (embedded or the team's), documents prepared by a
/// setup user (accounts imported from Salesforce and tracked), a recorder on every note,
/// virtual users started on the load profile, faults in their windows, then the load stops,
/// faults heal, the run waits for quiescence, probes cursors, records final states and runs
/// the simulator's checkers on the live history.
public final class LiveRun: @unchecked Sendable {
    let options: LiveRunOptions
    let scenario: Scenario
    let spec: LiveSpec
    let clock = RunClock()
    /// The wall-clock instant the run's clock started (shards are lined up by it).
    let epochStartMs = Int64((Date().timeIntervalSince1970 * 1000).rounded())
    public let metrics: LiveMetrics
    /// How busy the machine was, and how much of it other processes took (``MachineLoad``).
    public let machine: MachineLoad
    let output: @Sendable (String) -> Void
    var server: EmbeddedServer?
    /// The embedded server's database directory on `whalesim lazyfs`, for power-loss windows.
    var lazyMount: LazyFSMount?
    /// Fault windows this run cannot carry out, and why (the run is then inconclusive).
    let unavailable = NIOLockedValueBox<[String]>([])
    var salesforceServer: FakeSalesforceServer?
    var executor: (any HTTPExecutor)?
    var recorders: [DocumentRecorder] = []
    let users = NIOLockedValueBox<[VirtualUser]>([])
    let windows = NIOLockedValueBox<[FaultWindow]>([])
    let notes = NIOLockedValueBox<[String]>([])
    let abortReason = NIOLockedValueBox<String?>(nil)
    /// Set by ``interrupt(_:)`` (the CLI's first SIGINT or SIGTERM): what stopped the run early.
    private let interruption = NIOLockedValueBox<String?>(nil)
    /// When the interruption came (run clock, ms): waits that were already running end by then + the bound.
    let interruptedAtMs = NIOLockedValueBox<Int?>(nil)
    /// Whether the cursor probe ran to its end (an interrupted run skips it or cuts it short).
    var cursorsProbed = false
    /// How long an interrupted run waits for quiescence at most (the scenario's own bound if shorter).
    static let interruptedQuiescenceMs = 5_000
    var context: RunContext?
    var proxy: FaultProxy?
    /// When the load began (run clock, ms).
    var loadStartMs = 0
    /// The server's revision of notes whose recorder is down or behind, read by a fresh join.
    let serverHeads = NIOLockedValueBox<[Int: (revision: Int, atMs: Int)]>([:])
    /// The setup user's token and the server's socket (not through the proxy), for the run's own reads.
    var setupToken: String?
    var directSocketURL = ""
    /// The run's recorder once the documents are ready (read from other threads by benchmarks).
    let liveRecorder = NIOLockedValueBox<LiveRecorder?>(nil)
    /// The history's own checkers on the history so far, for the live view (a shard's are
    /// judged only on the merged history, so a shard runs none).
    let liveChecks: LiveChecks

    /// Websocket frames the runner's clients and recorders have sent and received so far
    /// (`bench run` divides them by the runner's CPU seconds).
    public var framesHandled: Int { liveRecorder.withLockedValue { $0 }?.messages ?? 0 }

    /// From when the load profile reaches its full client count to the end of the load (the
    /// `{steady}` scope of thresholds), on the run clock.
    var steadyWindow: Range<Int> {
        var full = 0
        while full < spec.durationMs, spec.load.clients(at: full, total: scenario.clients) < scenario.clients {
            full += 100
        }
        return (loadStartMs + full)..<(loadStartMs + max(full, spec.durationMs))
    }

    public init(options: LiveRunOptions, output: @escaping @Sendable (String) -> Void) {
        self.options = options
        scenario = options.scenario
        spec = options.scenario.live ?? LiveSpec()
        metrics = LiveMetrics(clock: clock, loops: RunContext.clientLoops(for: spec))
        machine = MachineLoad(foreignBound: spec.foreignCPUBoundCores)
        liveChecks = LiveChecks(checkers: options.shard == nil ? options.scenario.checkers : [])
        self.output = output
    }

    func note(_ line: String) {
        notes.withLockedValue { $0.append(line) }
    }

    /// Ends the load now (from any thread): the run then heals, waits for quiescence at most
    /// ``interruptedQuiescenceMs``, judges what it recorded (what could not be finished is
    /// `unknown`), stops its targets and returns a result marked interrupted by `reason`.
    public func interrupt(_ reason: String) {
        let now = clock.nowMs
        interruption.withLockedValue { if $0 == nil { $0 = reason } }
        interruptedAtMs.withLockedValue { if $0 == nil { $0 = now } }
    }

    var interrupted: String? { interruption.withLockedValue { $0 } }

    /// Notes a fault window the run cannot carry out: the run ends inconclusive, never a pass.
    func markUnavailable(_ why: String) {
        let first = unavailable.withLockedValue { u -> Bool in
            defer { if !u.contains(why) { u.append(why) } }
            return !u.contains(why)
        }
        if first { note(why); output("unavailable: \(why)") }
    }

    /// Runs the scenario to the end; throws only when the run could not start (targets down, bad fixtures).
    /// Whatever happens, its child server is stopped and its temporary directory removed.
    public func run() async throws -> LiveRunResult {
        RunCleanup.sweepStaleDirectories()
        let workDirectory = try RunCleanup.makeDirectory()
        defer { RunCleanup.remove(directory: workDirectory) }
        do {
            return try await run(in: workDirectory)
        } catch {
            await stopTargets()
            throw error
        }
    }

    /// The run's phases, in order (each in its `LiveRun+Phase.swift`). What one phase hands to
    /// the next is a value (``Targets``, ``Prepared``, ``Load``, ``Finals``); what runs for the
    /// rest of the run (the machine probe, the lazyfs mount, the recorders' watchdog, the runner's
    /// probes) stops by a `defer` here, when the run returns or throws, last started first.
    private func run(in workDirectory: URL) async throws -> LiveRunResult {
        try checkOpenFiles()
        // From the first second: the setup's sign-ins and the quiescence are seconds like the others.
        let machineProbe = MachineLoadProbe(load: machine, clock: clock)
        defer { machineProbe.stop() }
        let databaseDirectory = preparePowerLoss(workDirectory: workDirectory)
        // Unmounted before the directory goes (the caller removes it), the server stopped before that.
        defer { lazyMount?.unmount() }
        let faults = startingFaults()

        // Targets, then documents: a setup user imports the accounts whose notes the clients edit.
        let targets = try await startTargets(
            databaseDirectory: databaseDirectory, workDirectory: workDirectory, serverFaults: faults.server)
        let prepared = try await startRecorders(targets: targets, clientFaults: faults.client)
        // The recorders' watchdog runs for the whole run, whatever the run is busy with.
        let watchdog = startRecorderWatchdog()
        defer { watchdog.cancel() }
        try await waitForBaselines()
        noteLoopChoices(context: prepared.context)
        writeBackBeforeLoad()
        await waitForStartTime()

        // Load.
        let load = startLoad(targets: targets, prepared: prepared, windowed: faults.windowed)
        defer { load.stopProbes() }
        await holdLoad(until: load.startMs + spec.durationMs)
        await drainLoad(load, context: prepared.context)

        // Heal, quiesce, probe, finals.
        let quiet = await healAndQuiesce(recorder: prepared.recorder)
        await probeCursorsIfChecked(quiet: quiet, recorder: prepared.recorder)
        let finals = await recordFinalStates(
            recorder: prepared.recorder, socketURL: targets.socketURL, token: prepared.token)

        // Stop, judge.
        let salesforceLog = await shutDown(
            executor: targets.executor, recorder: prepared.recorder, workDirectory: workDirectory)
        machineProbe.stop()  // its last, partial second counts too
        return await judgeRun(recorder: prepared.recorder, quiet: quiet, finals: finals, salesforceLog: salesforceLog)
    }

    var allUsers: [VirtualUser] { users.withLockedValue { $0 } }
    var embeddedServer: EmbeddedServer? { server }
    var salesforceSummaryServer: FakeSalesforceServer? { salesforceServer }
}

/// A live run that could not start; the message says why.
public struct LiveRunError: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
