import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import NIOConcurrencyHelpers
import Testing
import WhaleLoad
import WhaleProtocol
@testable import WhaleRun
import WhaleServer
import WhaleSim
import WhalesimTesting

/// The observer is never the weak link: a recorder whose socket dies (with a close, without one,
/// or while it resyncs) dials again and resyncs, so its record has every revision; and a run
/// whose recorder stalls ends `unknown` where nothing fills the gap, never `invalid`.
@Suite(.serialized) struct RecorderTests {
    static let root = ExternalProcess.packageRoot
    static let seed = root.appendingPathComponent("Fixtures/whaler/seed.json")

    /// A reference server in this process on `port` (0: any) over `database`.
    static func server(port: Int = 0, database: String, compatibility: Bool = false, ackDelay: Duration = .zero)
        async throws -> ReferenceServer
    {
        var c = ServerConfiguration()
        c.port = port
        c.database = database
        c.fixtures = seed
        c.jwtSecret = Data("whalesim-recorder-test-secret-0123".utf8)
        c.bcryptCost = 4
        c.logLevel = .critical
        c.closeTimeout = .milliseconds(200)
        c.compatibility = compatibility
        c.ackDelay = ackDelay
        return try await ReferenceServer.start(c)
    }

    static func token(_ base: String) async throws -> String {
        var request = URLRequest(url: URL(string: base + "/api/user/login")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"email":"ann@acme.test","password":"whale-ann-1"}"#.utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        guard let token = ((json?["data"] as? [String: Any])?["tokens"] as? [String: Any])?["accessToken"] as? String
        else {
            throw LiveRunError("no access token in \(String(decoding: data, as: UTF8.self))")
        }
        return token
    }

    static func waitFor(
        _ what: String, seconds: Double = 20, watching recorder: DocumentRecorder? = nil, clock: RunClock = RunClock(),
        _ condition: () -> Bool
    ) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { throw LiveRunError("timed out waiting for \(what)") }
            recorder?.watch(nowMs: clock.nowMs)
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The revisions of the recorded `serverApply` events, in order.
    static func applied(_ history: History) -> [Int] {
        history.entries.compactMap { if case .serverApply(_, _, _, _, let r) = $0.event { r } else { nil } }
    }

    /// A socket that goes half-open (no byte either way, no close, new connections as dead)
    /// is found by the watchdog, dropped and dialed again; once the network is back the
    /// recorder resyncs and its record holds every revision, in order, with no gap.
    @Test func aHalfOpenSocketIsFoundAndTheRecorderResyncs() async throws {
        let dir = try ExternalProcess.temporaryDirectory("recorder-half-open")
        let server = try await Self.server(database: dir.appendingPathComponent("a.sqlite").path)
        defer { Task { await server.stop() } }
        let proxy = try await FaultProxy.start(upstreamHost: "127.0.0.1", upstreamPort: server.port, seed: 1)
        let token = try await Self.token(server.baseURL)
        let clock = RunClock()
        let log = LiveRecorder(clock: clock, documentNames: ["acc-acme-1"], initialTexts: [""], protocolVersion: 2)
        let recorder = DocumentRecorder(
            document: 0, resourceId: "acc-acme-1", socketURL: "ws://127.0.0.1:\(proxy.port)/socket", token: token,
            recorder: log, ops: OpRegistry(), clients: NIOLockedValueBox([:]))
        #expect(await recorder.connect())
        try await Self.waitFor("the recorder's join") { recorder.isJoined }
        let writer = LiveNoteClient(
            url: server.socketURL, token: token, clientId: ClientID("w1"), userId: "u-ann", resourceId: "acc-acme-1")
        try await writer.join()
        for i in 0..<3 { writer.edit(position: i, deleting: 0, inserting: "a"); try await writer.waitSynchronized() }
        try await Self.waitFor("revision 3 recorded") { recorder.revision == 3 }

        proxy.halfOpen(clients: ["recorder-0"])
        for i in 3..<6 { writer.edit(position: i, deleting: 0, inserting: "b"); try await writer.waitSynchronized() }
        // Nothing arrives; after its dead time the watchdog drops the socket (and the redials, as dead).
        try await Self.waitFor("the watchdog to drop the silent socket", watching: recorder, clock: clock) {
            recorder.staleDrops >= 1
        }
        #expect(recorder.revision == 3)
        proxy.endHalfOpen()
        try await Self.waitFor("the recorder to resync to revision 6", watching: recorder, clock: clock) {
            recorder.revision == 6 && recorder.isJoined
        }
        #expect(recorder.text == "aaabbb")
        #expect(Self.applied(log.history()) == [1, 2, 3, 4, 5, 6])
        #expect(recorder.gaps.isEmpty)
        await recorder.close()
        await writer.disconnect()
        await proxy.stop()
    }

    /// A quiet note is not a dead socket: the watchdog's pings are answered, and a recorder
    /// that hears nothing else for longer than its dead time keeps its socket. (In the demo the
    /// first watchdog dropped every recorder after the load's 10 s wind-down, in which nobody
    /// pinged: silence was measured, not an unanswered ping.)
    @Test func aQuietButHealthySocketIsKept() async throws {
        let dir = try ExternalProcess.temporaryDirectory("recorder-quiet")
        let server = try await Self.server(database: dir.appendingPathComponent("a.sqlite").path)
        let token = try await Self.token(server.baseURL)
        let clock = RunClock()
        let log = LiveRecorder(clock: clock, documentNames: ["acc-acme-1"], initialTexts: [""], protocolVersion: 2)
        let recorder = DocumentRecorder(
            document: 0, resourceId: "acc-acme-1", socketURL: server.socketURL, token: token,
            recorder: log, ops: OpRegistry(), clients: NIOLockedValueBox([:]))
        #expect(await recorder.connect())
        try await Self.waitFor("the recorder's join") { recorder.isJoined }
        // A watchdog called late (the run busy elsewhere) finds only what went unanswered.
        try await Task.sleep(for: .milliseconds(DocumentRecorder.deadAfterMs + 500))
        recorder.watch(nowMs: clock.nowMs)
        #expect(recorder.staleDrops == 0)
        let until = Date().addingTimeInterval(Double(DocumentRecorder.deadAfterMs) / 1000 + 2)
        while Date() < until {
            recorder.watch(nowMs: clock.nowMs)
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(recorder.staleDrops == 0)
        #expect(recorder.isJoined)
        await recorder.close()
        await server.stop()
    }

    /// The server is stopped and started again ten times on its port and file while a writer
    /// types, some stops landing while the recorder is still redialing or resyncing: after each
    /// the recorder is back, and at the end its record is the server's whole history.
    @Test func manyRestartsWhileTheRecorderRedialsAndResyncsLoseNothingFromTheRecord() async throws {
        let dir = try ExternalProcess.temporaryDirectory("recorder-restarts")
        let database = dir.appendingPathComponent("a.sqlite").path
        var server = try await Self.server(database: database)
        let port = server.port
        let token = try await Self.token(server.baseURL)
        let clock = RunClock()
        let log = LiveRecorder(clock: clock, documentNames: ["acc-acme-1"], initialTexts: [""], protocolVersion: 2)
        let recorder = DocumentRecorder(
            document: 0, resourceId: "acc-acme-1", socketURL: server.socketURL, token: token,
            recorder: log, ops: OpRegistry(), clients: NIOLockedValueBox([:]))
        #expect(await recorder.connect())
        try await Self.waitFor("the recorder's join") { recorder.isJoined }
        var typed = 0
        for round in 0..<10 {
            let writer = LiveNoteClient(
                url: server.socketURL, token: token, clientId: ClientID("w\(round)"), userId: "u-ann",
                resourceId: "acc-acme-1")
            try await writer.join()
            for _ in 0..<3 {
                writer.edit(position: typed, deleting: 0, inserting: "x")
                try await writer.waitSynchronized()
                typed += 1
            }
            await writer.disconnect()
            // Odd rounds stop the server the moment the recorder has seen the last op; even
            // rounds a little later, while its resync of the previous restart may be under way.
            if round % 2 == 0 { try await Task.sleep(for: .milliseconds(30 * round)) }
            await server.stop()
            try await Task.sleep(for: .milliseconds(20 + 40 * (round % 3)))
            server = try await Self.server(port: port, database: database)
        }
        try await Self.waitFor(
            "the recorder to catch up with \(typed) revisions", seconds: 30, watching: recorder, clock: clock
        ) { recorder.revision == typed && recorder.isJoined }
        #expect(Self.applied(log.history()) == Array(1...typed))
        #expect(recorder.text == String(repeating: "x", count: typed))
        #expect(recorder.gaps.isEmpty)
        await recorder.close()
        await server.stop()
    }

    /// A short live run on an in-process server (`compatibility`: the original protocol only,
    /// which offers no resync and so no account of a note's history), with note 0's recorder
    /// stalled one second into the load.
    func stalledRun(
        compatibility: Bool, stallAtMs: Int? = 1_000, mix: String = "{typing-burst: 10, delete: 2}",
        duration: String = "4s",
        thinkTime: String = "{distribution: uniform, min: 50, max: 150}", ackDelay: Duration = .zero,
        extraLive: String = ""
    ) async throws -> LiveRunResult {
        let dir = try ExternalProcess.temporaryDirectory("recorder-stalled")
        let server = try await Self.server(
            database: dir.appendingPathComponent("a.sqlite").path, compatibility: compatibility, ackDelay: ackDelay)
        let yaml = """
            name: stalled-recorder
            mode: live
            seed: 7
            clients: {count: 6, documents: 2, protocol: \(compatibility ? 1 : 2)}
            text: {alphabet: ascii}
            mix: \(mix)
            live:
              server: \(server.baseURL)
              duration: \(duration)
              load: {profile: constant}
              think-time: \(thinkTime)
              keystroke: {distribution: uniform, min: 20, max: 40}
              import: {pages: 1, filters: [Industry]}
              quiescence: 15s
            \(extraLive)
            checkers: [convergence, intention, revisions, liveness]
            """
        let file = dir.appendingPathComponent("stalled.yml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        var options = LiveRunOptions(
            scenario: try BuiltinScenarios.load(file.path), scenarioRef: file.path, seed: 7,
            fixtures: Self.root.appendingPathComponent("Fixtures"), reportsRoot: dir.path)
        options.stallRecorderAtMs = stallAtMs
        options.progress = .none
        let result = try await LiveRun(options: options) { _ in }.run()
        await server.stop()
        return result
    }

    /// A client that reconnects and resyncs is joined once its missed ops arrive: nothing takes
    /// the resynced socket for half-open. (Before, only a first join counted, and every resynced
    /// socket was dropped 9 s later as unanswered, again and again: 598 drops in a quiet demo.)
    @Test func aResyncedClientIsNotTakenForHalfOpen() async throws {
        let r = try await stalledRun(
            compatibility: false, stallAtMs: nil, mix: "{typing-burst: 10, reconnect: 4}", duration: "12s")
        let causes = r.history.entries.compactMap {
            if case .disconnect(_, let cause) = $0.event { cause } else { nil }
        }
        #expect(causes.contains("client reconnect"))
        #expect(
            !causes.contains { $0.contains("half-open") },
            "\(causes.filter { $0.contains("half-open") }.count) half-open drops")
        for c in r.results { #expect(c.verdict == .valid, "\(c.checker): \(c.evidence)") }
    }

    /// A server that acknowledges every op 5 s late (past the 4 s after which a client asks)
    /// but answers pings is slow, not half-open: no client is dropped, every op is acknowledged
    /// and every verdict holds. (Before, each late ack cost its client a reconnect and a resync,
    /// and on a busy CI machine a single slow ack failed the test above.)
    @Test func aSlowServerThatAnswersPingsKeepsItsClients() async throws {
        let r = try await stalledRun(
            compatibility: false, stallAtMs: nil, mix: "{typing-burst: 10}", duration: "6s",
            thinkTime: "{distribution: uniform, min: 300, max: 600}", ackDelay: .seconds(5))
        let causes = r.history.entries.compactMap {
            if case .disconnect(_, let cause) = $0.event { cause } else { nil }
        }
        #expect(!causes.contains { $0.contains("half-open") }, "dropped: \(causes)")
        let sent = r.history.entries.filter { if case .send = $0.event { true } else { false } }.count
        let acked = r.history.entries.filter { if case .ack = $0.event { true } else { false } }.count
        #expect(sent > 0 && acked == sent, "\(acked) of \(sent) sends acknowledged")
        for c in r.results { #expect(c.verdict == .valid, "\(c.checker): \(c.evidence)") }
    }

    /// `live.timer-grid`: the users' pauses end on the grid's steps, so their edits land in one
    /// narrow band of each step (their times, in ms of the run clock, modulo the step), where
    /// without a grid they spread over the whole step; the run says so in its notes; the verdicts
    /// hold. (A step of 10 ms, so the band is plain; up to 3 ms of it for a busy machine's late wake-ups.)
    @Test func aTimerGridWakesTheUsersOnItsSteps() async throws {
        func band(_ r: LiveRunResult) -> (share: Double, edits: Int) {
            let times = r.history.entries.compactMap { if case .edit = $0.event { $0.time } else { nil } }
            var residues = [Int](repeating: 0, count: 10)
            for t in times { residues[t % 10] += 1 }
            var best = 0
            for r in 0..<10 {
                let inBand: Int = residues[r] + residues[(r + 1) % 10] + residues[(r + 2) % 10]
                best = max(best, inBand)
            }
            return (Double(best) / Double(max(1, times.count)), times.count)
        }
        let gridded = try await stalledRun(
            compatibility: false, stallAtMs: nil, mix: "{typing-burst: 10}", duration: "3s",
            extraLive: "  timer-grid: 10ms")
        let g = band(gridded)
        #expect(
            g.edits > 50 && g.share >= 0.8,
            "\(Int(g.share * 100))% of \(g.edits) edits in the densest 3 ms of each 10 ms step")
        #expect(gridded.notes.contains { $0.contains("10 ms grid (live.timer-grid)") }, "\(gridded.notes)")
        for c in gridded.results { #expect(c.verdict == .valid, "\(c.checker): \(c.evidence)") }
        let free = band(
            try await stalledRun(compatibility: false, stallAtMs: nil, mix: "{typing-burst: 10}", duration: "3s"))
        #expect(
            free.edits > 50 && free.share < 0.6,
            "without a grid: \(Int(free.share * 100))% of \(free.edits) edits in the densest 3 ms")
    }

    /// `live.runner-loop`: the users' tasks, pauses and note sockets on whalesim's own epoll
    /// loops (the default), or on NIO's. The same scenario either way: edits, drops and redials
    /// (`reconnect`), resyncs, every verdict valid, no socket taken for half-open; a run on NIO's
    /// loops says so in its notes.
    @Test(arguments: ["epoll", "nio"]) func eitherRunnerLoopRunsWithTheSameVerdicts(loop: String) async throws {
        let r = try await stalledRun(
            compatibility: false, stallAtMs: nil, mix: "{typing-burst: 10, delete: 2, select: 2, reconnect: 3}",
            duration: "6s",
            extraLive: "  runner-loop: \(loop)")
        #expect(r.notes.contains { $0.contains("(live.runner-loop: nio)") } == (loop == "nio"), "\(r.notes)")
        let edits = r.history.entries.filter { if case .edit = $0.event { true } else { false } }.count
        let acks = r.history.entries.filter { if case .ack = $0.event { true } else { false } }.count
        let causes = r.history.entries.compactMap {
            if case .disconnect(_, let cause) = $0.event { cause } else { nil }
        }
        #expect(edits > 50 && acks > 20, "\(edits) edits, \(acks) acks")
        #expect(causes.contains("client reconnect"), "\(causes)")
        #expect(!causes.contains { $0.contains("half-open") }, "\(causes)")
        for c in r.results { #expect(c.verdict == .valid, "\(c.checker): \(c.evidence)") }
    }

    /// A user whose network goes (`reconnect`) is back as soon as the app's socket manager
    /// dials again (10–100 ms, as in the simulator), not after the user's next think time: with
    /// think times of 3–4 s, every reconnect's connect follows its drop within a second. (Left to
    /// the user's loop, a reconnect just before a server restart kept its client away for up
    /// to 8 s after the server was back, and the soak took that for the restart's slow recovery.)
    @Test func aReconnectingUserIsBackBeforeTheirNextAction() async throws {
        let r = try await stalledRun(
            compatibility: false, stallAtMs: nil, mix: "{typing-burst: 1, reconnect: 20}", duration: "8s",
            thinkTime: "{distribution: uniform, min: 3000, max: 4000}")
        var droppedAt: [Int: Int] = [:]
        var gaps: [Int] = []
        for entry in r.history.entries {
            switch entry.event {
            case .disconnect(let client, "client reconnect"): droppedAt[client] = entry.time
            case .connect(let client):
                if let at = droppedAt.removeValue(forKey: client) { gaps.append(entry.time - at) }
            default: break
            }
        }
        #expect(gaps.count >= 3, "reconnects seen: \(gaps.count)")
        #expect(gaps.allSatisfy { $0 < 1_000 }, "ms from drop to connect: \(gaps.sorted())")
        for c in r.results { #expect(c.verdict == .valid, "\(c.checker): \(c.evidence)") }
    }

    /// The stalled recorder's gap is filled from the server's own account (a protocol-2 resync
    /// after quiescence): every checker is valid, and the notes say what came from where.
    @Test func aStalledRecorderIsFilledFromTheServersAccount() async throws {
        let r = try await stalledRun(compatibility: false)
        for c in r.results { #expect(c.verdict == .valid, "\(c.checker): \(c.evidence)") }
        #expect(r.notes.contains { $0.contains("not observed live were taken from the server's resync") }, "\(r.notes)")
        #expect(r.exitCode == 0)
    }

    /// Against a server with no resync, nothing can fill the gap: the checkers that need the
    /// missing revisions are `unknown` with the reason, the run exits 3, and nothing is `invalid`.
    @Test func aStalledRecorderWithNoAccountIsUnknownNotInvalid() async throws {
        let r = try await stalledRun(compatibility: true)
        #expect(r.verdict == .unknown, "\(r.results.map { "\($0.checker): \($0.verdict) \($0.evidence)" })")
        #expect(!r.results.contains { $0.verdict == .invalid })
        #expect(r.results.contains { c in c.evidence.contains { $0.contains("server revisions of this note") } })
        #expect(r.exitCode == 3)
    }
}
