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
import WhalesimLive

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
    private var server: EmbeddedServer?
    /// The embedded server's database directory on `whalesim lazyfs`, for power-loss windows.
    private(set) var lazyMount: LazyFSMount?
    /// Fault windows this run cannot carry out, and why (the run is then inconclusive).
    let unavailable = NIOLockedValueBox<[String]>([])
    private var salesforceServer: FakeSalesforceServer?
    private(set) var executor: (any HTTPExecutor)?
    private(set) var recorders: [DocumentRecorder] = []
    private let users = NIOLockedValueBox<[VirtualUser]>([])
    let windows = NIOLockedValueBox<[FaultWindow]>([])
    private let notes = NIOLockedValueBox<[String]>([])
    private let abortReason = NIOLockedValueBox<String?>(nil)
    /// Set by ``interrupt(_:)`` (the CLI's first SIGINT or SIGTERM): what stopped the run early.
    private let interruption = NIOLockedValueBox<String?>(nil)
    /// When the interruption came (run clock, ms): waits that were already running end by then + the bound.
    private let interruptedAtMs = NIOLockedValueBox<Int?>(nil)
    /// Whether the cursor probe ran to its end (an interrupted run skips it or cuts it short).
    private var cursorsProbed = false
    /// How long an interrupted run waits for quiescence at most (the scenario's own bound if shorter).
    static let interruptedQuiescenceMs = 5_000
    private(set) var context: RunContext?
    private(set) var proxy: FaultProxy?
    /// When the load began (run clock, ms).
    private(set) var loadStartMs = 0
    /// The server's revision of notes whose recorder is down or behind, read by a fresh join.
    private let serverHeads = NIOLockedValueBox<[Int: (revision: Int, atMs: Int)]>([:])
    /// The setup user's token and the server's socket (not through the proxy), for the run's own reads.
    private var setupToken: String?
    private var directSocketURL = ""
    /// The run's recorder once the documents are ready (read from other threads by benchmarks).
    private let liveRecorder = NIOLockedValueBox<LiveRecorder?>(nil)

    /// Websocket frames the runner's clients and recorders have sent and received so far
    /// (`bench run` divides them by the runner's CPU seconds).
    public var framesHandled: Int { liveRecorder.withLockedValue { $0 }?.messages ?? 0 }

    /// From when the load profile reaches its full client count to the end of the load (the
    /// `{steady}` scope of thresholds), on the run clock.
    var steadyWindow: Range<Int> {
        var full = 0
        while full < spec.durationMs, spec.load.clients(at: full, total: scenario.clients) < scenario.clients { full += 100 }
        return (loadStartMs + full)..<(loadStartMs + max(full, spec.durationMs))
    }

    public init(options: LiveRunOptions, output: @escaping @Sendable (String) -> Void) {
        self.options = options
        scenario = options.scenario
        spec = options.scenario.live ?? LiveSpec()
        metrics = LiveMetrics(clock: clock, loops: RunContext.clientLoops(for: spec))
        machine = MachineLoad(foreignBound: spec.foreignCPUBoundCores)
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

    /// Where the embedded server's database goes: on a `whalesim lazyfs` mount when the scenario
    /// has power-loss windows (else the plain work directory). A power loss that cannot be had
    /// (no FUSE, an in-process server, a team's server without --restart-command and
    /// --lazyfs-control) is marked unavailable here, before the load.
    private func preparePowerLoss(workDirectory: URL) -> URL {
        guard scenario.nemeses.contains(where: { $0.kind == .powerLoss }) else { return workDirectory }
        switch spec.server {
        case .embedded:
            guard let executable = options.serverExecutable else {
                markUnavailable("power-loss windows: the embedded server runs in this process; a power loss needs it in a child process on whalesim lazyfs")
                return workDirectory
            }
            do {
                let mount = try LazyFSMount(executable: executable, backing: workDirectory.appendingPathComponent("durable"),
                                            mount: workDirectory.appendingPathComponent("lazyfs"))
                lazyMount = mount
                note("the embedded server's database is on whalesim lazyfs at \(mount.mount.path) (backing \(mount.backing.path))")
                return mount.mount
            } catch {
                markUnavailable("power-loss windows: \(error)")
                return workDirectory
            }
        case .url(let u):
            if options.restartCommand == nil || options.lazyfsControl == nil {
                markUnavailable("power-loss windows: the server at \(u) is not embedded; give --restart-command and --lazyfs-control (its data directory on whalesim lazyfs, docs/lazyfs.md)")
            }
            return workDirectory
        }
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

    /// Stops what a run that could not start may have started (idempotent).
    private func stopTargets() async {
        for r in recorders { await r.close() }
        await executor?.shutdown()
        await proxy?.stop()
        await server?.stop()
        await salesforceServer?.stop()
    }

    private func run(in workDirectory: URL) async throws -> LiveRunResult {
        let ownClients = options.shard.map { (scenario.clients + $0.count - 1) / $0.count } ?? scenario.clients
        // Room for a redial storm only where something can cause one: a nemesis, a network fault,
        // a catalog fault, a reconnect action or a script (any of them may close sockets at once).
        let storms = !scenario.nemeses.isEmpty || !(scenario.live?.networkFaults.isEmpty ?? true) || !scenario.faultWindows.isEmpty
            || scenario.mix[.reconnect] > 0 || scenario.script != nil
        if let shortfall = OpenFiles.shortfall(clients: ownClients, documents: scenario.documents, storms: storms) { throw LiveRunError(shortfall) }
        // From the first second: the setup's sign-ins and the quiescence are seconds like the others.
        let machineProbe = MachineLoadProbe(load: machine, clock: clock)
        defer { machineProbe.stop() }
        let databaseDirectory = preparePowerLoss(workDirectory: workDirectory)
        // Unmounted before the directory goes (the caller removes it), the server stopped before that.
        defer { lazyMount?.unmount() }
        // Whole-run faults are on from the start; windowed ones are switched by `runFaultSwitches`.
        let windowed = Set(scenario.faultWindows.filter { !$0.isWholeRun }.map(\.name))
        let faults = FaultSet(scenario.faults.filter { !windowed.contains($0) }.compactMap(Fault.init(rawValue:)))
        let serverFaults = FaultSet(faults.filter { !$0.isClientSide })
        let clientFaults = FaultSet(faults.filter { $0.isClientSide })

        // Targets.
        let serverURL: String
        switch spec.server {
        case .embedded:
            let level = SQLiteSynchronous(rawValue: scenario.storageSync.rawValue) ?? .full
            let slowClientQueue = spec.slowClientQueue, log = Self.backpressureLogPath(in: workDirectory)
            let s = try await EmbeddedServer.start(directory: databaseDirectory, fixtures: options.fixtures.appendingPathComponent("whaler/seed.json"), faults: serverFaults, executable: options.serverExecutable) { c in
                c.sqliteSynchronous = level
                if let slowClientQueue { c.slowClientQueue = slowClientQueue }
                c.backpressureLog = log
            }
            server = s
            serverURL = s.baseURL
        case .url(let u):
            if !serverFaults.isEmpty { note("server-side faults \(serverFaults.map(\.rawValue)) apply to the embedded server only: the target at \(u) runs as it is") }
            if scenario.storageSync != .full { note("storage.synchronous \(scenario.storageSync.rawValue) applies to the embedded server only: the target at \(u) syncs as it is configured") }
            serverURL = u
        }
        // Sized for bursts: a restart's thousand page refetches come and go (HTTPExecutors.forRunner).
        let executor = HTTPExecutors.forRunner(clients: scenario.clients)
        self.executor = executor
        let api = APIClient(executor: executor, metrics: metrics)
        let whaler = WhalerAPI(baseURL: serverURL, client: api)
        var salesforce: SalesforceAPI?
        switch spec.salesforce {
        case .embedded:
            let sf = try await EmbeddedSalesforce.start(fixtures: options.fixtures, accounts: max(600, scenario.documents * 4), seed: options.seed)
            salesforceServer = sf
            var api = SalesforceAPI(baseURL: sf.httpURL, apiVersion: "59.0", client: api)
            api.pinInstance = true
            salesforce = api
        case .url(let u):
            salesforce = SalesforceAPI(baseURL: u, apiVersion: "59.0", client: api)
        }
        let socketURL = serverURL.replacingOccurrences(of: "https://", with: "wss://").replacingOccurrences(of: "http://", with: "ws://") + "/socket"
        // Network faults need the proxy between the clients' sockets and the server; the
        // recorders and the final reads go direct (they observe, they are not under test).
        var clientSocketURL = socketURL
        if needsProxy {
            guard let u = URL(string: serverURL), let host = u.host, let port = u.port ?? (u.scheme == "https" ? 443 : 80) as Int?, u.scheme == "http" else {
                throw LiveRunError("network faults need a plain http:// server URL to proxy, got \(serverURL)")
            }
            let p = try await FaultProxy.start(upstreamHost: host, upstreamPort: port, seed: options.seed)
            proxy = p
            clientSocketURL = "ws://127.0.0.1:\(p.port)/socket"
        }

        // Documents: a setup user imports the accounts whose notes the clients edit.
        let setup = try await prepareDocuments(whaler: whaler, salesforce: salesforce)
        let recorder = LiveRecorder(clock: clock, documentNames: setup.accountIds, initialTexts: setup.accountIds.map { _ in "" },
                                    protocolVersion: scenario.protocolVersion)
        let context = RunContext(scenario: scenario, spec: spec, whaler: whaler, salesforce: salesforce,
                                 salesforceClientId: options.salesforceClient.id, salesforceClientSecret: options.salesforceClient.secret,
                                 metrics: metrics, recorder: recorder, socketURL: clientSocketURL, clientFaults: clientFaults,
                                 modelSpec: setup.modelDriven ? scenario.model : nil, organizationUsers: setup.organizationUsers,
                                 runTag: String(epochStartMs, radix: 36), log: { [weak self] in self?.note($0) })
        self.context = context
        liveRecorder.withLockedValue { $0 = recorder }
        setupToken = setup.token
        directSocketURL = socketURL
        for (d, id) in setup.accountIds.enumerated() {
            let r = DocumentRecorder(document: d, resourceId: id, socketURL: socketURL, token: setup.token, recorder: recorder, ops: context.ops, clients: context.clientIndexes,
                                     fromRevisionZero: options.shard != nil, stallAtMs: d == 0 ? options.stallRecorderAtMs.map { clock.nowMs + $0 + 100 } : nil,
                                     visitEveryMs: spec.recorderVisitEveryMs, loop: context.clientLoop(d))
            recorders.append(r)
            guard await r.connect() else { throw LiveRunError("cannot open a websocket to \(socketURL) for \(id)") }
        }
        // The recorders' watchdog runs for the whole run, whatever the run is busy with.
        let watchdog = Task { [weak self] in
            while !Task.isCancelled {
                self?.watchRecorders()
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        defer { watchdog.cancel() }
        // Each note's baseline (its revision and text now) must be known before anyone types.
        let joinDeadline = clock.nowMs + 15_000
        while let waiting = recorders.first(where: { !$0.hasAnsweredAJoin }) {
            guard clock.nowMs < joinDeadline else { throw LiveRunError("the server did not answer a join of \(waiting.resourceId) within 15 s") }
            try? await Task.sleep(for: .milliseconds(20))
        }

        if spec.runnerLoop == .nio {
            note("the virtual users' note sockets, pauses and tasks ran on NIO's event loops (live.runner-loop: nio), not whalesim's own epoll loops")
        } else if context.clientLoops.isEmpty {
            note("live.runner-loop: epoll needs Linux's epoll: the virtual users ran on NIO's event loops")
        }
        if spec.timerGridMs > 0 {
            note("the virtual users' pauses end on a \(spec.timerGridMs) ms grid (live.timer-grid): their edits reach the server in steps, which can raise its latency at p50")
        }

        // On lazyfs, what the setup wrote (users, imported accounts, tracking) is on the disk before
        // the load, as a deployment's older data is once the kernel wrote it back: a power loss
        // then takes what the load wrote and the server did not sync, not the whole database
        // (at `storage.synchronous: off` nothing is ever synced, and every note would vanish).
        if let lazyMount {
            do { try lazyMount.writeback() } catch { note("lazyfs writeback before the load failed: \(error)") }
        } else if spec.server != .embedded, scenario.nemeses.contains(where: { $0.kind == .powerLoss }), let control = options.lazyfsControl {
            do { try Data("writeback\n".utf8).write(to: URL(fileURLWithPath: control)) } catch {
                note("writeback to --lazyfs-control \(control) before the load failed: \(error)")
            }
        }

        // Load.
        output("whalesim run \(scenario.name): \(scenario.clients) clients (\(spec.load)), \(spec.durationMs / 1000)s, server \(serverURL), salesforce \(salesforce?.baseURL ?? "none")\(options.shard.map { ", shard \($0.index)/\($0.count)" } ?? "")")
        let loadStart = clock.nowMs
        loadStartMs = loadStart
        let lagProbe = RunnerLagProbe(metrics: metrics)
        defer { lagProbe.stop() }
        let trimmer = HeapTrimmer()
        defer { trimmer.stop() }
        let starver = options.starveRunnerMs.map { RunnerStarver(blockMs: $0) }
        defer { starver?.stop() }
        let userTasks = NIOLockedValueBox<[Task<Void, Never>]>([])
        let scheduler = Task { await self.scheduleUsers(context: context, recorder: recorder, loadStart: loadStart, tasks: userTasks) }
        let faultTask = Task { await self.runFaultWindows(context: context, loadStart: loadStart) }
        let switchTask = Task { await self.runFaultSwitches(context: context, loadStart: loadStart, windowed: windowed) }
        let progress = Task { await self.reportProgress(loadStart: loadStart) }
        let deadline = loadStart + spec.durationMs
        while clock.nowMs < deadline, abortReason.withLockedValue({ $0 }) == nil, interrupted == nil {
            try? await Task.sleep(for: .milliseconds(100))
            if spec.abortOnFail, let lost = alreadyLostThreshold() { abortReason.withLockedValue { $0 = lost } }
        }
        context.endLoad()
        scheduler.cancel()
        faultTask.cancel()
        switchTask.cancel()
        _ = await switchTask.value
        _ = await scheduler.value
        _ = await faultTask.value
        // Users finish their current action; one stuck on a dead connection is cancelled.
        let stragglers = userTasks.withLockedValue { $0 }
        let allDone = NIOLockedValueBox(false)
        let finished = Task {
            for t in stragglers { await t.value }
            allDone.withLockedValue { $0 = true }
        }
        let waitDeadline = clock.nowMs + (interrupted == nil ? 10_000 : 2_000)
        while clock.nowMs < waitDeadline, !allDone.withLockedValue({ $0 }) {
            try? await Task.sleep(for: .milliseconds(50))
        }
        for t in stragglers { t.cancel() }
        _ = finished
        progress.cancel()
        _ = await progress.value
        if let reason = abortReason.withLockedValue({ $0 }) { output("aborted early: \(reason)") }
        if let reason = interrupted {
            output("interrupted by \(reason) after \((clock.nowMs - loadStart) / 1000) s of load: judging what was recorded")
            note("interrupted by \(reason) \(clock.nowMs - loadStart) ms into the load (of \(spec.durationMs) ms); quiescence bounded to \(quiescenceBoundMs / 1000) s")
        }

        // Heal, quiesce, probe, finals.
        await healEverything()
        recorder.record(.heal)
        let healedAt = clock.nowMs
        let quiet = await waitQuiescent(timeoutMs: quiescenceBoundMs)
        if quiet { metrics.latency("converge", us: Int64(clock.nowMs - healedAt) * 1000) }
        recorder.record(.quiescence(reached: quiet, ticksAfterHeal: clock.nowMs - healedAt))
        if !quiet { note("not quiescent \(quiescenceBoundMs / 1000) s after healing: " + unquietReasons(limit: 6)) }
        if quiet, interrupted == nil, scenario.checkers.contains(.cursors) { await probeCursors(recorder: recorder) }
        let accounts = await readAccounts(socketURL: socketURL, token: setup.token)
        await recordFinals(recorder: recorder, socketURL: socketURL, token: setup.token)
        recorder.record(.traffic(messages: recorder.messages, edits: recorder.edits, clients: recorder.clientCount))
        let endMs = clock.nowMs
        let drops = recorders.map(\.staleDrops).reduce(0, +)
        if drops > 0 { note("the recorders' watchdog dropped \(drops) silent socket\(drops == 1 ? "" : "s") (a join or a ping unanswered for \(DocumentRecorder.deadAfterMs / 1000) s) and dialed again") }

        for u in users.withLockedValue({ $0 }) {
            await u.noteSession?.close()
            await u.modelPage?.close()
        }
        for r in recorders { await r.close() }
        let salesforceLog = salesforceServer?.fake.requestLog.entries
        await executor.shutdown()
        if let proxy {
            let s = proxy.stats
            note("proxy: \(s.connectionsAccepted) connections, \(s.bytesUpstream) bytes up, \(s.bytesDownstream) down, \(s.connectionsDropped) reset, \(s.chunksHeld) chunks held, \(s.chunksDiscarded) discarded")
            await proxy.stop()
        }
        await server?.stop()
        await salesforceServer?.stop()
        if server != nil {
            let marks = Self.recordBackpressure(path: Self.backpressureLogPath(in: workDirectory), recorder: recorder, epochStartMs: epochStartMs)
            if marks > 0 { note("the server marked connections slow or drained \(marks) time\(marks == 1 ? "" : "s") (its backpressure log, in the history as notes)") }
        }

        machineProbe.stop()  // its last, partial second counts too
        // What the users' loops sampled since their last merge (at most 100 ms of it).
        await metrics.drainLoops()
        var result = judge(history: reconcile(recorder.history(), accounts: accounts), endMs: endMs, quiet: quiet)
        result.unavailable = unavailable.withLockedValue { $0 }
        result.epochStartMs = epochStartMs
        result.baseRevisions = recorder.baselines.map(\.revision)
        result.bucketHistograms = metrics.bucketHistograms(endMs: endMs)
        result.shard = options.shard
        result.salesforce = salesforceLog.map(SalesforceFigures.init(entries:))
        result.steadyWindow = steadyWindow
        return result
    }

    struct Setup {
        var token: String
        var accountIds: [String]
        /// The scenario has a model section and the server offers whalesim's GraphQL extensions.
        var modelDriven = false
        var organizationUsers: [String] = []
    }


    /// Signs in the organization's admin, imports `documents` accounts from Salesforce (or takes
    /// the board's when there is no Salesforce), saves and tracks them: their notes are the documents.
    private func prepareDocuments(whaler: WhalerAPI, salesforce: SalesforceAPI?) async throws -> Setup {
        let admin = Identities.whaler[0]
        let session: WhalerAPI.Session
        do { session = try await whaler.login(email: admin.email, password: admin.password) } catch {
            throw LiveRunError("cannot sign in \(admin.email) at \(whaler.baseURL): \(error)")
        }
        var ids: [String] = []
        var sfIds: [String: String] = [:]
        if let salesforce {
            do {
                let sfUser = try salesforceCredentials(0)
                let connection = try await salesforce.connect(username: sfUser.user, password: sfUser.password, clientId: options.salesforceClient.id, clientSecret: options.salesforceClient.secret)
                let soql = "SELECT Id, Name, Industry, BillingCity, BillingState, Type, Website, Phone, NumberOfEmployees FROM Account ORDER BY Id LIMIT \(scenario.documents)"
                let result = try await salesforce.query(soql, connection: connection, maxPages: 20)
                let inputs = result.records.compactMap(SalesforceAPI.account).map(VirtualUser.accountInput)
                let saved = try await whaler.saveAccounts(inputs, senderID: "whalesim-setup", token: session.accessToken)
                try await whaler.track(inputs, tracked: true, token: session.accessToken)
                ids = saved.map(\.id)
                for a in saved { sfIds[a.id] = a.salesforceID }
            } catch let e as LiveRunError {
                throw e
            } catch {
                throw LiveRunError("cannot import accounts from Salesforce at \(salesforce.baseURL): \(error)")
            }
        } else {
            ids = try await whaler.accounts(token: session.accessToken).map(\.id).sorted()
        }
        guard ids.count >= scenario.documents else {
            throw LiveRunError("the scenario needs \(scenario.documents) account notes; only \(ids.count) accounts are available")
        }
        var setup = Setup(token: session.accessToken, accountIds: Array(ids.prefix(scenario.documents)), organizationUsers: session.organizationUsers)
        if scenario.model != nil {
            if await whaler.offersModelExtensions(token: session.accessToken) {
                setup.modelDriven = true
                if let salesforce { try await importContacts(setup.accountIds, salesforceIds: sfIds, whaler: whaler, salesforce: salesforce, token: session.accessToken) }
            } else {
                note("the server at \(whaler.baseURL) offers no whalesim GraphQL extensions (whalesimPage, the mutation reply): model pages are not driven and the model checker says unknown")
            }
        }
        return setup
    }

    /// The account pages' contacts, imported as the app does (its Contact query per account,
    /// then `saveContacts`), so account-page users have cards to move.
    private func importContacts(_ accountIds: [String], salesforceIds: [String: String], whaler: WhalerAPI, salesforce: SalesforceAPI, token: String) async throws {
        do {
            let sfUser = try salesforceCredentials(0)
            let connection = try await salesforce.connect(username: sfUser.user, password: sfUser.password, clientId: options.salesforceClient.id, clientSecret: options.salesforceClient.secret)
            for id in accountIds {
                guard let sf = salesforceIds[id] else { continue }
                let soql = "SELECT id, accountId, firstName, lastName, title, phone, email from Contact WHERE AccountId = \(SalesforceAPI.soqlLiteral(sf))"
                let found = try await salesforce.query(soql, connection: connection, maxPages: 5).records
                let inputs = found.compactMap { o -> ContactInput? in
                    guard let cid = o["Id"] as? String ?? o["id"] as? String else { return nil }
                    return ContactInput(accountID: id, salesforceID: cid, firstName: o["FirstName"] as? String ?? o["firstName"] as? String ?? "",
                                        lastName: o["LastName"] as? String ?? o["lastName"] as? String ?? "", jobTitle: o["Title"] as? String ?? o["title"] as? String,
                                        email: o["Email"] as? String ?? o["email"] as? String, phone: o["Phone"] as? String ?? o["phone"] as? String)
                }
                if !inputs.isEmpty { _ = try await whaler.mutate(.saveContacts(inputs), senderID: "whalesim-setup", token: token) }
            }
        } catch let e as LiveRunError {
            throw e
        } catch {
            throw LiveRunError("cannot import contacts from Salesforce at \(salesforce.baseURL): \(error)")
        }
    }

    func salesforceCredentials(_ i: Int) throws -> (user: String, password: String) {
        if let given = options.salesforceUser {
            let parts = given.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw LiveRunError("--salesforce-user must be username:password(+token)") }
            return (parts[0], parts[1])
        }
        let c = Identities.salesforce[i % Identities.salesforce.count]
        return (c.user, c.password)
    }

    /// Whether this process runs client `i` (all of them, or its shard's).
    func owns(_ i: Int) -> Bool {
        guard let shard = options.shard else { return true }
        return i % shard.count == shard.index
    }

    /// Starts users as the load profile asks, in client-number order.
    private func scheduleUsers(context: RunContext, recorder: LiveRecorder, loadStart: Int, tasks: NIOLockedValueBox<[Task<Void, Never>]>) async {
        var next = 0
        let total = scenario.clients
        let root = SimRandom(seed: options.seed)
        while !context.isLoadOver, !Task.isCancelled {
            let target = spec.load.clients(at: clock.nowMs - loadStart, total: total)
            while next < target, !context.isLoadOver {
                let i = next
                next += 1
                guard owns(i) else { continue }
                let name = String(format: "c%03d", i + 1)
                let d = i % scenario.documents
                let index = recorder.addClient(name: name, document: d)
                let who = Identities.whaler[i % Identities.whaler.count]
                let sf = (try? salesforceCredentials(i)) ?? (user: "", password: "")
                let user = VirtualUser(index: index, name: name,
                                       identity: .init(email: who.email, password: who.password, salesforceUser: sf.user, salesforcePassword: sf.password),
                                       document: d, accountId: recorder.documentNames[d], run: context, rng: root.derive(UInt64(i + 1)))
                users.withLockedValue { $0.append(user) }
                // With `live.runner-loop: epoll` the user's task runs on its loop: its pauses, its
                // edits and its note's frames on one thread (HTTP and model pages stay on NIO's).
                let task = Task(executorPreference: context.clientLoop(index)) {
                    if await user.start() { await user.act() }
                }
                tasks.withLockedValue { $0.append(task) }
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// True when every user's note is joined and synchronized at its recorder's revision, and
    /// nothing has moved for a moment; reconnects whoever is still out.
    private func isQuiet() async -> Bool {
        var quiet = true
        watchRecorders()
        for r in recorders where r.needsReconnect { await r.reconnectIfNeeded() }
        await refreshServerHeads()
        let clientsAt = clientRevisions()
        for u in users.withLockedValue({ $0 }) {
            if let m = u.modelPage, m.needsReconnect { await m.reconnectIfNeeded() }
            if let n = u.noteSession {
                if n.needsReconnect { await n.reconnectIfNeeded() }
                if let cause = n.halfOpenCause(nowMs: clock.nowMs) { n.abandon(cause: cause) }
            }
            if !unquiet(u, clientsAt: clientsAt).isEmpty { quiet = false }
        }
        return quiet
    }

    /// What keeps one user from being quiet: its model page, its note not joined and
    /// synchronized, or its note behind the server's revision. Empty when it is quiet.
    private func unquiet(_ u: VirtualUser, clientsAt: [Int: Int]) -> [String] {
        var why: [String] = []
        if let m = u.modelPage, !m.isQuiet { why.append(m.unquietReason) }
        if let n = u.noteSession {
            if !n.isSynchronized { why.append("note not joined and synchronized\(n.needsReconnect ? " (socket down)" : "")") }
            else if let server = referenceRevision(n.document, clientsAt: clientsAt[n.document] ?? 0), n.session.revision != server.revision {
                why.append("note at revision \(n.session.revision), \(server.source) \(server.revision)")
            }
        }
        return why
    }

    /// The revision a note's clients must reach to be quiet: the recorder's (what the server
    /// broadcast) while it is joined; while it is not (redialing, or stalled), the highest revision
    /// a synchronized client of the note holds, so the observer being down never holds the run
    /// back, nor judges it (the final reads and the server's account settle what it missed).
    private func referenceRevision(_ document: Int, clientsAt: Int) -> (revision: Int, source: String)? {
        let r = recorders[document]
        if r.isJoined, r.revision >= clientsAt { return (r.revision, "server's") }
        // The recorder is down or behind the note's clients: the server's own answer decides.
        if let head = serverHeads.withLockedValue({ $0[document] }) { return (head.revision, "server's (read by a fresh join; its recorder at \(r.revision))") }
        return nil
    }

    /// Per note, the highest revision a joined and synchronized client holds (one pass over the users).
    private func clientRevisions() -> [Int: Int] {
        var out: [Int: Int] = [:]
        for u in users.withLockedValue({ $0 }) {
            guard let n = u.noteSession, n.isSynchronized else { continue }
            out[n.document] = max(out[n.document] ?? 0, n.session.revision)
        }
        return out
    }

    /// For each note whose recorder is down or behind its clients, the server's revision by a
    /// fresh join, at most once a second a note (what quiescence compares the clients with then).
    private func refreshServerHeads() async {
        guard let token = setupToken else { return }
        let now = clock.nowMs
        let clientsAt = clientRevisions()
        for (d, r) in recorders.enumerated() {
            let behind = !r.isJoined || r.revision < (clientsAt[d] ?? 0)
            guard behind else { serverHeads.withLockedValue { _ = $0.removeValue(forKey: d) }; continue }
            if let last = serverHeads.withLockedValue({ $0[d] }), now - last.atMs < 1_000 { continue }
            if let state = await ProbeJoin.read(socketURL: directSocketURL, resourceId: r.resourceId, token: token, timeout: .seconds(2)) {
                serverHeads.withLockedValue { $0[d] = (state.revision, now) }
            }
        }
    }

    /// Runs every recorder's watchdog (half-open sockets are dropped and dialed again).
    func watchRecorders() {
        let now = clock.nowMs
        for r in recorders { r.watch(nowMs: now) }
    }

    /// Each note's history as the server itself accounts for it, read after quiescence by a
    /// protocol-2 resync from the note's baseline; nil for a note whose account could not be
    /// had (a server without resync answers with its full state only).
    private func readAccounts(socketURL: String, token: String) async -> [[ServerAccountOp]?] {
        var out: [[ServerAccountOp]?] = []
        for r in recorders {
            guard let base = r.baseline,
                  let ops = await ProbeJoin.account(socketURL: socketURL, resourceId: r.resourceId, token: token, fromRevision: base) else {
                out.append(nil)
                continue
            }
            let registry = context?.ops
            out.append(ops.map { ServerAccountOp(opId: $0.opId ?? "", client: $0.opId.flatMap { registry?.op($0)?.client } ?? -1, op: $0.op) })
        }
        return out
    }

    /// The recorded history checked against each note's account (``History/reconciled``): what the
    /// recorders missed is taken from it, what they saw differently is a conflict. Notes say what
    /// came from where; a note without an account keeps its gaps (the checkers say unknown).
    private func reconcile(_ history: History, accounts: [[ServerAccountOp]?]) -> History {
        var given: [(document: Int, account: [ServerAccountOp])] = []
        for (d, account) in accounts.enumerated() {
            guard let account else {
                note("\(history.documentNames[d]): the server gave no account of its history (no protocol-2 resync); revisions the recorder missed stay unobserved")
                continue
            }
            given.append((d, account))
        }
        let (h, said) = history.reconciled(accounts: given, readAt: clock.nowMs,
                                           source: { "the server's resync from revision \(self.recorders[$0].baseline ?? 0) after quiescence" })
        for line in said { note(line) }
        return h
    }

    /// The first `limit` users that keep the run from being quiet, and why (the note a run that
    /// never quiesces ends with, so its liveness finding can be followed up).
    private func unquietReasons(limit: Int) -> String {
        let clientsAt = clientRevisions()
        var reasons: [String] = []
        for u in users.withLockedValue({ $0 }) {
            let why = unquiet(u, clientsAt: clientsAt)
            if !why.isEmpty { reasons.append("\(u.name): " + why.joined(separator: ", ")) }
        }
        let shown = reasons.prefix(limit).joined(separator: "; ")
        if reasons.isEmpty { return "every client is quiet; messages were still arriving" }
        return reasons.count > limit ? shown + "; and \(reasons.count - limit) more" : shown
    }

    func waitQuiescent(timeoutMs: Int, settleMs: Int = 300) async -> Bool {
        let deadline = clock.nowMs + timeoutMs
        var quietSince: Int?
        // An interruption during the wait shortens it to the interrupted bound.
        while clock.nowMs < min(deadline, interruptedAtMs.withLockedValue { $0.map { $0 + Self.interruptedQuiescenceMs } ?? .max }) {
            if await isQuiet() {
                let now = clock.nowMs
                let lastMessage = recorders.map(\.lastMessageMs).max() ?? 0
                if quietSince == nil { quietSince = now }
                if now - quietSince! >= settleMs, now - lastMessage >= settleMs { return true }
            } else {
                quietSince = nil
            }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return false
    }

    /// The simulator's cursor probe on real sockets: everyone sets a selection (most collapsed at
    /// one spot per note), the run goes quiet, the first client of each note and every fourth
    /// one type at that spot, it goes quiet again, and every own and remote cursor is recorded.
    private func probeCursors(recorder: LiveRecorder) async {
        var rng = SimRandom(seed: options.seed).derive(0xC0FFEE)
        let sessions = users.withLockedValue { $0 }.compactMap(\.noteSession)
        var spot: [Int: Int] = [:]
        for n in sessions where spot[n.document] == nil { spot[n.document] = rng.int(in: 0...n.session.document.count) }
        for n in sessions {
            let len = n.session.document.count
            let at = min(spot[n.document]!, len)
            var selection = Selection(cursor: at)
            if n.index % 3 == 2 {
                let other = rng.int(in: 0...len)
                selection = rng.chance(0.5) ? Selection(anchor: at, head: other) : Selection(anchor: other, head: at)
            }
            n.select(selection, record: true)
        }
        guard await waitQuiescent(timeoutMs: spec.quiescenceMs) else { return }
        // A shard does not type here: the others may have recorded their final texts already.
        var first: Set<Int> = options.shard == nil ? [] : Set(sessions.map(\.document))
        for n in sessions {
            let typist = first.insert(n.document).inserted || (options.shard == nil && n.index % 4 == 3)
            if typist, n.session.selection.isCollapsed {
                n.edit(position: n.session.selection.head, deleting: 0, inserting: TextGenerator(alphabet: scenario.alphabet).snippet(rng.int(in: 1...2), using: &rng))
            }
        }
        guard await waitQuiescent(timeoutMs: spec.quiescenceMs) else { return }
        for n in sessions {
            let others = sessions.filter { $0.document == n.document }.map { ($0.index, ClientID($0.connectionId)) }
            n.recordCursors(others: others)
        }
        cursorsProbed = true
    }

    /// The server's final text of each note, read by a fresh join; then every client's state.
    private func recordFinals(recorder: LiveRecorder, socketURL: String, token: String) async {
        for (d, r) in recorders.enumerated() {
            if let state = await ProbeJoin.read(socketURL: socketURL, resourceId: r.resourceId, token: token) {
                recorder.record(.serverFinal(document: d, text: state.text, revision: state.revision, historyCount: state.revision))
            } else {
                note("could not read the final state of \(r.resourceId); the recorder's copy stands in")
                recorder.record(.serverFinal(document: d, text: r.text, revision: r.revision, historyCount: r.revision))
            }
            for gap in r.gaps { note(gap) }
        }
        for u in users.withLockedValue({ $0 }) { u.noteSession?.recordFinal() }
        await recordModelFinals(recorder: recorder, token: token)
    }

    /// Every model page as its user sees it and as the server answers that user's fetch now,
    /// then the organization's records (the model checker's final state).
    private func recordModelFinals(recorder: LiveRecorder, token: String) async {
        guard let context, context.modelSpec != nil else { return }
        for u in users.withLockedValue({ $0 }) {
            guard let m = u.modelPage, let t = u.accessToken else { continue }
            let accountID: String? = if case .account(let id) = m.page { id } else { nil }
            do {
                let snapshot = try await context.whaler.page(accountID: accountID, token: t)
                m.recordFinal(serverRecords: snapshot.shown.map(\.line))
            } catch {
                note("could not read \(u.name)'s \(m.page.name) from the server: \(error)")
                m.recordFinal(serverRecords: nil)
            }
        }
        do {
            recorder.record(.modelServerState(records: try await context.whaler.modelState(token: token).sorted()))
        } catch {
            note("could not read the model's final state: \(error)")
        }
    }

    /// A latency or error threshold already lost (for `abort-on-fail`): only upper bounds on
    /// figures that cannot come back (max, counts, errors) or after enough samples.
    func alreadyLostThreshold() -> String? {
        let totals = metrics.totals
        for t in scenario.metricThresholds where t.canOnlyGetWorse && t.scope == nil {
            guard let actual = figure(t, totals: totals) else { continue }
            let settled = t.stat == "max" || t.stat == "count" || t.metric == "errors" && t.stat == "count"
                || (totals[t.metric]?.count ?? 0) >= 1000 || (t.metric == "errors" && metrics.attempts >= 1000)
            if settled, !t.isMet(by: actual) { return "\(t.text) (now \(LiveJudge.show(actual, metric: t.metric, stat: t.stat)))" }
        }
        return nil
    }

    func figure(_ t: MetricThreshold, totals: [String: LatencyHistogram]) -> Double? {
        LiveJudge.figure(t, LiveJudge.Figures(totals: totals, errors: metrics.errorCount, attempts: metrics.attempts))
    }

    private func judge(history: History, endMs: Int, quiet: Bool) -> LiveRunResult {
        var results: [CheckResult]
        if let shard = options.shard {
            // Other shards' clients' ops are in this shard's server history: only the merged history can be judged.
            results = scenario.checkers.map { CheckResult(checker: $0, verdict: .unknown, evidence: ["shard \(shard.index)/\(shard.count): judged on the merged history by whalesim merge"]) }
        } else {
            results = LiveJudge.checks(scenario, history)
        }
        if let reason = interrupted { results = Self.unfinished(results, interruptedBy: reason, quiet: quiet, cursorsProbed: cursorsProbed) }
        let starved = metrics.filesExhausted
        if starved > 0 {
            let limit = OpenFiles.limits().map { " (limit \($0.soft))" } ?? ""
            let why = "whalesim ran out of open files\(limit): \(starved) of its connects failed for it, so a client that did not catch up may be whalesim's, not the server's"
            note(why)
            results = Self.outOfFiles(results, why: why)
        }
        let verdict = Checkers.merged(results)
        let thresholds = LiveJudge.thresholds(scenario, results)
        let totals = metrics.totals
        let faultWindows = windows.withLockedValue { $0 }
        var figures = LiveJudge.Figures(totals: totals, buckets: metrics.bucketsByMetric, errors: metrics.errorCount, attempts: metrics.attempts, lagBoundMs: spec.lagBoundMs)
        figures.steady = steadyWindow
        figures.excluded = LiveJudge.excludedWindows(faultWindows)
        let contended = machine.contendedWindows()
        figures.contended = contended
        figures.contentionRule = machine.contentionRule
        let metricOutcomes = LiveJudge.metricThresholds(scenario, figures)
        let saturated = LiveJudge.saturatedWindows(figures)
        if !saturated.isEmpty {
            let seconds = saturated.map { ($0.end - $0.start) / 1000 }.reduce(0, +)
            note("the load generator was saturated (runner_lag p99 past \(spec.lagBoundMs) ms) for \(seconds) s in \(saturated.count) stretch\(saturated.count == 1 ? "" : "es"), shaded in the report")
        }
        if !contended.isEmpty {
            let seconds = contended.map { ($0.end - $0.start) / 1000 }.reduce(0, +)
            note("the machine was busy with other processes for \(seconds) s in \(contended.count) stretch\(contended.count == 1 ? "" : "es") (\(machine.contentionRule)), shaded in the report")
        }
        var series = metrics.series(endMs: endMs, faultWindows: faultWindows + saturated + contended)
        series.machine = machine.series(buckets: series.bucketStarts.count)
        return LiveRunResult(scenario: scenario, history: history, results: results, verdict: verdict, thresholds: thresholds,
                             metricThresholds: metricOutcomes, histograms: totals,
                             series: series,
                             errors: metrics.errorCount, attempts: metrics.attempts, clientsStarted: users.withLockedValue { $0.count },
                             aborted: abortReason.withLockedValue { $0 }, durationMs: endMs, notes: notes.withLockedValue { $0 },
                             interrupted: interrupted)
    }

    /// The quiescence bound: the scenario's, or at most ``interruptedQuiescenceMs`` once interrupted.
    var quiescenceBoundMs: Int { interrupted == nil ? spec.quiescenceMs : min(spec.quiescenceMs, Self.interruptedQuiescenceMs) }

    /// An interrupted run's verdicts: a checker that needs what the interruption cut short says
    /// `unknown` with why. Without quiescence, the end-state checkers (convergence, liveness,
    /// cursors, model) cannot tell a lagging replica from a diverged one; without the cursor
    /// probe, cursors has nothing to judge. The history's own checkers (intention, revisions)
    /// stand: what they found is in what was recorded.
    static func unfinished(_ results: [CheckResult], interruptedBy reason: String, quiet: Bool, cursorsProbed: Bool) -> [CheckResult] {
        results.map { r in
            let why: String? = if !quiet && endStateCheckers.contains(r.checker) {
                "interrupted by \(reason) before the run was quiescent: the end state cannot be judged"
            } else if r.checker == .cursors && !cursorsProbed {
                "interrupted by \(reason): the cursor probe did not run"
            } else { nil }
            guard let why, r.verdict != .unknown else { return r }
            return unknown(r, because: why)
        }
    }

    /// A run in which whalesim could not open its own sockets: the end-state checkers (a client
    /// that could not redial never converges, never quiesces) say `unknown` instead of `invalid`,
    /// with why; what they found valid stands, and so do the history's own checkers.
    static func outOfFiles(_ results: [CheckResult], why: String) -> [CheckResult] {
        results.map { r in endStateCheckers.contains(r.checker) && r.verdict == .invalid ? unknown(r, because: why) : r }
    }

    /// The checkers that judge the run's end state, which only a quiescent run whalesim fully
    /// observed can show; intention and revisions judge what the history recorded.
    static let endStateCheckers: Set<CheckerName> = [.convergence, .liveness, .cursors, .model]

    /// `r` made `unknown` because of `why`, keeping what it would have said when that was `invalid`.
    static func unknown(_ r: CheckResult, because why: String) -> CheckResult {
        var evidence = [why]
        if r.verdict == .invalid { evidence.append("(it would have said invalid: \(r.evidence.first ?? ""))") }
        return CheckResult(checker: r.checker, verdict: .unknown, evidence: evidence, findings: r.findings)
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
