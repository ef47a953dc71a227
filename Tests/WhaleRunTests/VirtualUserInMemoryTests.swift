import Foundation
import Testing
import WhaleLoad
import WhaleModel
import WhaleProtocol
@testable import WhaleRun
@testable import WhaleSim

/// Two ``VirtualUser``s playing the app without a port: the note sockets go to an
/// ``InMemoryCollab``, the board's pool socket and every GraphQL call to an ``InMemoryModel``,
/// both real sans-I/O servers. Their seeded behaviour types (non-ASCII, counted in UTF-8 bytes by
/// a client fault, so the server refuses some ops), moves cards and drops its connection; at the
/// end every note equals the server's, the board shows what the server answers, and the refused
/// ops and the reconnects are in the history.
@Suite struct VirtualUserInMemoryTests {
    static let yaml = """
        name: virtual-user-in-memory
        mode: live
        seed: 7
        clients: {count: 2, documents: 1, protocol: 2}
        text: {alphabet: unicode}
        mix: {typing-burst: 10, delete: 2, move-account: 4, reconnect: 3}
        model: {board: 1, accounts: 2}
        live:
          server: http://memory
          duration: 5s
          think-time: {distribution: uniform, min: 5, max: 15}
          keystroke: {distribution: uniform, min: 1, max: 3}
          import: {pages: 0}
          runner-loop: nio
        """

    /// An HTTP executor for a run whose every call goes to memory: any request reaching it fails.
    struct NoHTTP: HTTPExecutor {
        func execute(_ request: HTTPRequestSpec, timeout: Duration) async throws(HTTPTransportError) -> HTTPResult {
            throw HTTPTransportError(.connect, "no HTTP in memory: \(request.url)")
        }
        func shutdown() async {}
    }

    /// Two users of one organization, their servers in memory, run for two seconds of load.
    struct Rig {
        static let users = ["u1", "u2"]
        let model: InMemoryModel
        let notes = InMemoryCollab()
        let metrics: LiveMetrics
        let recorder: LiveRecorder
        let run: RunContext
        let virtualUsers: [VirtualUser]

        /// `driven` false: the server offers no model extensions (as a team's own server may not),
        /// so the users' stores read and save the board the app's way.
        init(model driven: Bool) throws {
            let scenario = try Scenario.decode(yaml: VirtualUserInMemoryTests.yaml, source: "memory")
            let spec = try #require(scenario.live)
            let org = ModelWorld.organizationId
            let seed = ModelWorld.seed(
                spec: try #require(scenario.model), userIds: Self.users)
            let callers = Dictionary(
                uniqueKeysWithValues: Self.users.map { ("tok-\($0)", Caller(userId: $0, organizationId: org)) })
            let model = InMemoryModel(seed: seed, callers: callers)
            let notes = notes
            // The board's socket joins the organization's pool; a note's socket joins its account.
            let sockets = NoteSocketFactory { url, headers, loop, onBuffer in
                let hub = headers.first { $0.0 == "ObjectId" }?.1 == org ? model.sockets : notes.sockets
                return hub.open(url: url, headers: headers, loop: loop, onBuffer: onBuffer)
            }
            let clock = RunClock()
            metrics = LiveMetrics(clock: clock, spillDirectory: nil)
            recorder = LiveRecorder(clock: clock, documentNames: ["acc-1"], initialTexts: [""], protocolVersion: 2)
            let whaler = WhalerAPI(baseURL: "http://memory", client: APIClient(executor: NoHTTP(), metrics: metrics))
            let run = RunContext(
                scenario: scenario, spec: spec, whaler: whaler, salesforce: nil, salesforceClientId: "",
                salesforceClientSecret: "", metrics: metrics, recorder: recorder, socketURL: "ws://memory/ws",
                clientFaults: [.utf8LengthUnits], modelSpec: driven ? scenario.model : nil,
                organizationUsers: Self.users,
                runTag: "t",
                log: { _ in }, sockets: sockets, network: model)
            self.model = model
            self.run = run
            virtualUsers = Self.users.enumerated().map { i, u in
                VirtualUser(
                    index: i, name: String(format: "c%03d", i + 1),
                    identity: .init(email: u, password: "", salesforceUser: "", salesforcePassword: ""),
                    document: 0, accountId: "acc-1", run: run, rng: SimRandom(seed: UInt64(7 + i)))
            }
        }

        var sessions: [NoteSession] { virtualUsers.compactMap(\.noteSession) }
        var events: [HistoryEvent] { recorder.history().entries.map(\.event) }

        /// Starts the users, lets them act for two seconds, ends the load; the servers are
        /// pumped all along. True when every note session (and the board) went quiet after.
        func play() async -> Bool {
            let (notes, model) = (notes, model)
            let pumping = Task {
                while !Task.isCancelled {
                    notes.pump()
                    model.pump()
                    try? await Task.sleep(for: .milliseconds(1))
                }
            }
            defer { pumping.cancel() }
            for user in virtualUsers { #expect(await user.start()) }
            let acting = Task {
                await withTaskGroup(of: Void.self) { group in
                    for user in virtualUsers { group.addTask { await user.act() } }
                }
            }
            try? await Task.sleep(for: .milliseconds(2_000))
            run.endLoad()
            await acting.value
            let board = virtualUsers[0].modelPage
            return await eventually(10) {
                sessions.allSatisfy { $0.isSynchronized && $0.session.outstanding == nil && $0.session.buffer == nil }
                    && board?.isQuiet != false
            }
        }

        func close() async {
            for session in sessions { await session.close() }
            await virtualUsers[0].modelPage?.close()
        }
    }

    @Test func usersTypeMoveCardsReconnectAndConverge() async throws {
        let rig = try Rig(model: true)
        let quiet = await rig.play()
        let board = try #require(rig.virtualUsers[0].modelPage)
        #expect(quiet, "\(rig.sessions.map(\.connectionSummary)) \(board.unquietReason)")
        let serverText = try #require(rig.notes.text("acc-1"))
        #expect(!serverText.isEmpty)
        for session in rig.sessions { #expect(session.session.text == serverText) }
        #expect(board.client.view.map(\.line) == (try rig.model.shown(.board, token: "tok-u1")))

        let events = rig.events
        let disconnects = events.filter { if case .disconnect = $0 { true } else { false } }.count
        #expect(disconnects >= 1, "the users' reconnect actions drop their connections")
        #expect(
            events.contains { if case .failed(_, _, let code) = $0 { code.hasPrefix("dropped") } else { false } },
            "refused ops reported")
        #expect(events.contains { if case .ack = $0 { true } else { false } })
        #expect(
            events.contains { if case .modelAck(0, _, _) = $0 { true } else { false } },
            "the board user's moves acknowledged")
        // Each join of a page is an open, and each open reads the page once (cached, then fresh).
        #expect(rig.metrics.counterTotal("page_reads") == rig.model.reads)
        #expect(rig.metrics.counterTotal("page_opens") >= 2)
        await rig.close()
    }

    /// On a server without whalesim's extensions the stores do the pages: each user opens its
    /// account page (and the board, since the mix moves cards) at the start and again after
    /// every reconnect, from storage then from the server, and its card moves go through the
    /// board store.
    @Test func onAPlainServerThePagesReopenAfterAReconnect() async throws {
        let rig = try Rig(model: false)
        let quiet = await rig.play()
        #expect(quiet, "\(rig.sessions.map(\.connectionSummary))")
        let serverText = try #require(rig.notes.text("acc-1"))
        for session in rig.sessions { #expect(session.session.text == serverText) }
        #expect(rig.virtualUsers.allSatisfy { $0.modelPage == nil })

        let reconnects = rig.events.filter { if case .disconnect = $0 { true } else { false } }.count
        #expect(reconnects >= 1)
        // Two pages per open (board and account page), two users opening at the start.
        let opens = rig.metrics.counterTotal("page_opens")
        #expect(opens > 4, "pages reopened after reconnects (\(reconnects) disconnects)")
        #expect(opens % 2 == 0)
        #expect(rig.metrics.counterTotal("page_reads") == opens)
        #expect(rig.model.reads >= opens, "every open read its page from the server")
        #expect(rig.metrics.counterTotal("kanban_moves") >= 1)
        // Each user's cached board holds the cards the server shows that user (its tracked
        // accounts; only the first user's seed tracks any), as of its last open or move.
        for user in rig.virtualUsers {
            let theirs = try await rig.model.accounts(token: "tok-\(user.identity.email)")
            #expect(Set(user.storage.snapshot.board.map(\.id)) == Set(theirs.map(\.id)), "\(user.name)")
        }
        #expect(!rig.virtualUsers[0].storage.snapshot.board.isEmpty)
        await rig.close()
    }
}
