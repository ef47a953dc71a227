import Foundation
import WhaleModel
import WhaleOT
import WhaleProtocol
import WhaleSession
import WhaleSim

/// One person using the Whaler app: signs in, connects Salesforce and imports accounts with a
/// stacked-filter search (following `nextRecordsUrl`), saves and tracks them, opens an account
/// page and types in its note at human speed (bursts, pauses, pastes, selections, deletes),
/// moves cards on the board, and now and then loses the connection and comes back.
/// Everything it needs is passed in (APIs, the note session, its random stream).
///
/// Shaped like the app it plays: the networking layer (``WhalerNetworking``, ``SalesforceAPI``),
/// the storage layer (``AppStorage``: what the app has cached) and the stores that act on it
/// (``AccountsStore``, ``BoardStore``, ``AccountPageStore``, a model-driven ``ModelPage``, the
/// note's ``NoteSession``). The user itself only decides what the person does next, from its
/// seeded stream, and dispatches that action to a store.
final class VirtualUser: @unchecked Sendable {
    struct Identity: Sendable {
        var email: String
        var password: String
        var salesforceUser: String
        var salesforcePassword: String
    }

    let index: Int
    let name: String
    let identity: Identity
    let document: Int
    let accountId: String
    let run: RunContext
    /// Only this user's task touches it (no lock needed): the seeded stream of its choices.
    private var rng: SimRandom
    /// When the last sleep was planned to end: the user's schedule. The first edit after it is
    /// measured from there, so a runner that wakes late (out of CPU) counts its own lateness
    /// into the op's latency instead of hiding it (no coordinated omission), and the lateness
    /// itself goes into `runner_lag`, which tells the two apart.
    private var plannedUs: Int64?
    var note: NoteSession?
    /// The user's model page (board or account page) when the run drives the model.
    private var model: ModelPage?
    /// What the user's app has cached (the stores write it, the user reads snapshots).
    let storage = AppStorage()
    /// The recorded session this user plays (a replay workload), else nil.
    let replay: ReplayScript?
    /// The stores, once signed in.
    private var stores: Stores?
    var tasksCreated = 0
    /// The note's dial count when the pages were last opened (nil: not yet).
    private var pagesOpenedOnDial: Int?
    var session: WhalerAPI.Session?

    /// The stores of a signed-in user (they carry its token).
    struct Stores: Sendable {
        var accounts: AccountsStore?
        var board: BoardStore
        var accountPage: AccountPageStore
    }

    init(
        index: Int, name: String, identity: Identity, document: Int, accountId: String, run: RunContext, rng: SimRandom
    ) {
        self.index = index
        self.name = name
        self.identity = identity
        self.document = document
        self.accountId = accountId
        self.run = run
        self.rng = rng
        replay = run.replay?.script(for: index)
    }

    var noteSession: NoteSession? { note }
    var modelPage: ModelPage? { model }
    var accessToken: String? { session?.accessToken }

    /// Signs in and opens the account page; false (with the error counted) when it could not.
    func start() async -> Bool {
        do {
            let started = run.clock.nowMs
            let session = try await run.network.login(email: identity.email, password: identity.password)
            self.session = session
            if replay != nil { run.replay?.made(RequestKind.login, ms: run.clock.nowMs - started) }
            let stores = makeStores(session)
            self.stores = stores
            if run.spec.importPages > 0, let accounts = stores.accounts {
                await importAccounts(accounts)
            }
            // The board (every tracked account) only for users who work on it; everyone opens
            // their account page: its contacts and tasks, then the note over the socket.
            // With the model driven, the page is a ModelClient: the first `model.board` users
            // work on the board, everyone else on their account's page.
            let page = run.modelSpec.map { openModelPage($0, session: session) }
            model = page
            if page == nil {
                if run.usesBoard { await stores.board.open() }
                await stores.accountPage.open(accountId)
            }
            if let page, page.ownsSocket { await page.connect() }
            let note = NoteSession(
                index: index, clientId: ClientID(name), userId: session.userId, resourceId: accountId,
                document: document,
                context: run.noteContext(token: session.accessToken, client: index),
                model: page?.ownsSocket == false ? page : nil)
            self.note = note
            await note.connect()
            return true
        } catch {
            run.log("\(name): could not start: \(error)")
            return false
        }
    }

    private func makeStores(_ session: WhalerAPI.Session) -> Stores {
        let token = session.accessToken
        let accounts = run.salesforce.map {
            AccountsStore(
                salesforce: $0, network: run.network, storage: storage, token: token, senderID: name,
                metrics: run.metrics)
        }
        return Stores(
            accounts: accounts,
            board: BoardStore(
                network: run.network, storage: storage, token: token, senderID: name, metrics: run.metrics),
            accountPage: AccountPageStore(network: run.network, storage: storage, token: token, metrics: run.metrics))
    }

    /// The model-driven page: the board for the first `boardClients` users, their account's page for the others.
    private func openModelPage(_ spec: ModelSpec, session: WhalerAPI.Session) -> ModelPage {
        let onBoard = index < spec.boardClients
        var client = ModelClient(
            clientId: ClientID(name),
            caller: Caller(userId: session.userId, organizationId: session.organizationId),
            page: onBoard ? .board : .account(accountId),
            configuration: .init(protocolVersion: run.protocolVersion, faults: run.clientFaults))
        client.interner = run.modelInterner
        return ModelPage(index: index, client: client, context: run.modelContext(token: session.accessToken))
    }

    /// The app's import: the user picks stacked filters for the Salesforce search; the store
    /// caches what it found; without the model driven, the user saves a few and tracks them.
    private func importAccounts(_ store: AccountsStore) async {
        do {
            var filters: [(field: String, value: String)] = []
            for field in run.spec.importFilters where rng.chance(0.6) {
                let choices = Self.filterValues[field] ?? []
                if !choices.isEmpty { filters.append((field, choices[rng.int(in: 0...(choices.count - 1))])) }
            }
            let credentials = (
                user: identity.salesforceUser, password: identity.salesforcePassword,
                clientId: run.salesforceClientId, clientSecret: run.salesforceClientSecret
            )
            let accounts = try await store.importAccounts(
                credentials: credentials, filters: filters, maxPages: run.spec.importPages)
            // With the model driven, the saving is the ModelClient's: its `track` mutations draw
            // from the imported accounts and are recorded for the model checker. A save here would
            // be a model write the history never saw (the checker would rightly call it a lost mutation).
            guard !accounts.isEmpty, run.modelSpec == nil else { return }
            var picked: [SalesforceAPI.AccountRecord] = []
            for _ in 0..<min(3, accounts.count) { picked.append(accounts[rng.int(in: 0...(accounts.count - 1))]) }
            try await store.saveAndTrack(picked)
        } catch {
            run.log("\(name): import failed: \(error)")
        }
    }

    /// The values the search's filters offer, by field.
    static let filterValues: [String: [String]] = [
        "Industry": ["Technology", "Finance", "Retail", "Manufacturing", "Healthcare"],
        "BillingState": ["CA", "NY", "TX", "WA"], "BillingCity": ["San Francisco", "Austin", "New York"],
        "Type": ["Prospect", "Customer - Direct"], "Name": ["O'Brien & Sons", "Acme \\ Corp"],
    ]

    /// Acts until `run.isLoadOver`: a drawn action, then a think time. Reconnects when the
    /// socket was lost (with backoff) or an op went unacknowledged too long (half-open).
    func act() async {
        guard let note else { return }
        if let replay, let plan = run.replay {
            await play(replay, speed: plan.speed)
            return
        }
        var backoffMs = 100
        var pastedInitial = false
        while !run.isLoadOver {
            if note.needsReconnect {
                await sleep(ms: backoffMs + rng.int(in: 0...backoffMs))
                backoffMs = min(backoffMs * 2, 2_000)
                if run.isLoadOver { break }
                await note.reconnectIfNeeded()
                plannedUs = nil
                continue
            }
            if let cause = note.halfOpenCause(nowMs: run.clock.nowMs) {
                note.abandon(cause: cause)
                model?.abandon()  // the same connection: the board's socket is as dead
                continue
            }
            if let model, model.needsReconnect {
                await model.reconnectIfNeeded()
                plannedUs = nil
                if run.isLoadOver { break }
            }
            backoffMs = 100
            guard note.isJoined else {
                await sleep(ms: 20)
                continue
            }
            await reopenPagesIfReconnected(note)
            if !pastedInitial {
                pastedInitial = true
                if !run.initialText.isEmpty, note.session.document.count == 0, run.claimInitialText(document) {
                    note.edit(position: 0, deleting: 0, inserting: run.initialText, intendedUs: takePlanned())
                }
            }
            var think = run.spec.thinkTime.sample(using: &rng)
            let action = run.mix.draw(using: &rng) ?? .idle
            await perform(action, think: &think)
            await sleep(ms: max(1, think))
        }
    }

    /// One action of the person's mix; `think` is the pause after it (longer after an idle
    /// moment, or after a board action the page could not take).
    private func perform(_ action: ActionMix.Action, think: inout Int) async {
        guard let note else { return }
        switch action {
        case .typingBurst:
            let count = rng.int(in: 1...6)
            for _ in 0..<count where !run.isLoadOver {
                typeAtSelection(run.generator.character(using: &rng))
                await sleep(ms: run.spec.keystroke.sample(using: &rng))
            }
        case .paste:
            typeAtSelection(run.generator.snippet(rng.int(in: run.pasteSize), using: &rng))
        case .delete:
            deleteSomething()
        case .select:
            let n = note.session.document.count
            note.select(Selection(anchor: rng.int(in: 0...n), head: rng.int(in: 0...n)))
        case .samePositionInsert:
            let s = note.session
            let spots = [0, s.document.count] + s.remoteCursors.map(\.selection.head)
            let at = spots[rng.int(in: 0...(spots.count - 1))]
            note.edit(
                position: at, deleting: 0, inserting: run.generator.snippet(rng.int(in: 1...3), using: &rng),
                intendedUs: takePlanned())
        case .cursorMove:
            let s = note.session
            note.select(Selection(cursor: min(max(s.selection.head + rng.int(in: -5...5), 0), s.document.count)))
        case .jump:
            note.select(Selection(cursor: rng.int(in: 0...note.session.document.count)))
        case .idle:
            think *= 3
        case .reconnect:
            // The network goes while typing: a keystroke, then the socket is gone, and the
            // app's socket manager dials again 10–100 ms later, as in the simulator. (Left to
            // this loop, the user came back after the think time, up to 8 s: just before a
            // server restart, that absence was counted as the restart's slow recovery.)
            typeAtSelection(run.generator.character(using: &rng))
            let redialMs = 10 + rng.int(in: 0...90)
            note.abandon(cause: "client reconnect", redialAfterMs: redialMs)
            model?.abandon(redialAfterMs: redialMs)
        case .moveAccount, .track, .untrack, .assignAccount, .moveContact, .createTask, .completeTask,
            .reassignTask, .deleteTask:
            if let model {
                if !modelAction(model, action) { think *= 2 }
            } else if [.moveAccount, .track, .untrack].contains(action) {
                await boardAction(action)  // a server without whalesim's extensions: the app's moves, unchecked
            } else {
                think *= 2
            }
        }
    }

    private func typeAtSelection(_ text: String) {
        guard let note else { return }
        let s = note.session
        let n = s.document.count
        let lo = min(min(s.selection.anchor, s.selection.head), n),
            hi = min(max(s.selection.anchor, s.selection.head), n)
        note.edit(position: lo, deleting: hi - lo, inserting: text, intendedUs: takePlanned())
    }

    private func deleteSomething() {
        guard let note else { return }
        let s = note.session
        let n = s.document.count
        guard n > 0 else { return }
        let lo = min(min(s.selection.anchor, s.selection.head), n),
            hi = min(max(s.selection.anchor, s.selection.head), n)
        let roll = rng.int(in: 0...9)
        if roll < 5 {
            if hi > lo {
                note.edit(position: lo, deleting: hi - lo, inserting: "", intendedUs: takePlanned())
            } else if lo > 0 {
                note.edit(position: lo - 1, deleting: 1, inserting: "", intendedUs: takePlanned())
            }
        } else if roll < 7, lo > 0 {
            let k = min(lo, rng.int(in: 2...8))
            note.edit(position: lo - k, deleting: k + (hi - lo), inserting: "", intendedUs: takePlanned())
        } else {
            let at = rng.int(in: 0...(n - 1))
            note.edit(position: at, deleting: min(n - at, rng.int(in: 1...8)), inserting: "", intendedUs: takePlanned())
        }
    }

    /// A model workload action on the user's page through its ModelClient (optimistic, rolled
    /// back when refused); false when it does not apply to what the page shows.
    private func modelAction(_ model: ModelPage, _ action: ActionMix.Action) -> Bool {
        let taskId = "\(name)-task-\(tasksCreated + 1)-\(run.runTag)"
        let done = model.act(
            action,
            inputs: { client in
                ModelWorkload.Inputs(
                    me: client.caller.userId, users: run.organizationUsers, trackable: storage.snapshot.imported,
                    newTaskId: taskId,
                    now: ISO8601DateFormatter().string(from: Date()))
            }, generator: run.generator, using: &rng)
        if done, action == .createTask { tasksCreated += 1 }
        return done
    }

    /// Once the note is back on a new connection, the app reopens its pages (on a server without
    /// whalesim's extensions; a model page refetches on its own join): each shows what storage
    /// holds and refreshes from the server, cached then fresh. No draw from the user's stream.
    private func reopenPagesIfReconnected(_ note: NoteSession) async {
        guard model == nil, let stores else { return }
        let dials = note.dials
        defer { pagesOpenedOnDial = dials }
        guard let opened = pagesOpenedOnDial, opened != dials else { return }
        if run.usesBoard { await stores.board.open() }
        await stores.accountPage.open(accountId)
    }

    /// A kanban move or tracking change over GraphQL, shown at once and rolled back if refused.
    private func boardAction(_ action: ActionMix.Action) async {
        guard let board = stores?.board else { return }
        let cards = storage.snapshot.board
        guard !cards.isEmpty else { return }
        let card = cards[rng.int(in: 0...(cards.count - 1))]
        let columns = BoardStore.columns.filter { $0 != (card.state ?? "Ready") }
        let column = columns[rng.int(in: 0...(columns.count - 1))]
        switch action {
        case .moveAccount:
            await board.moveCard(card, to: column)
        case .track, .untrack:
            await board.track(card, tracked: action == .track)
        default:
            break
        }
    }

    func sleep(ms: Int) async {
        var planned = run.clock.nowUs + Int64(ms) * 1000
        planned += await LoopSleep.sleep(ms: ms, gridMs: run.spec.timerGridMs, on: run.clientLoop(index))
        run.metrics.lag(us: run.clock.nowUs - planned)
        plannedUs = planned
    }

    /// The planned time of the action under way, once (later edits of the same action count from now).
    func takePlanned() -> Int64? {
        defer { plannedUs = nil }
        return plannedUs
    }
}
