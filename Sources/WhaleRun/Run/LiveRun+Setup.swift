import Foundation
import WhaleModel
import WhaleProtocol
import WhaleSim

/// The setup phase: a setup user imports the accounts whose notes the clients edit, a recorder
/// joins every note, and each note's baseline is known before anyone types.
extension LiveRun {
    struct Setup {
        var token: String
        var accountIds: [String]
        /// The scenario has a model section and the server offers whalesim's GraphQL extensions.
        var modelDriven = false
        var organizationUsers: [String] = []
    }

    /// What the setup phase hands to the load and the phases after it.
    struct Prepared {
        /// The setup user's token, for the run's own reads.
        var token: String
        var recorder: LiveRecorder
        var context: RunContext
    }

    /// Documents prepared by the setup user, the run's recorder and context, and a recorder
    /// connected to every note (direct to the server's socket).
    func startRecorders(targets: Targets, clientFaults: FaultSet) async throws -> Prepared {
        let socketURL = targets.socketURL
        let setup = try await prepareDocuments(whaler: targets.whaler, salesforce: targets.salesforce)
        let recorder = LiveRecorder(
            clock: clock, documentNames: setup.accountIds, initialTexts: setup.accountIds.map { _ in "" },
            protocolVersion: scenario.protocolVersion)
        let context = RunContext(
            scenario: scenario, spec: spec, whaler: targets.whaler, salesforce: targets.salesforce,
            salesforceClientId: options.salesforceClient.id, salesforceClientSecret: options.salesforceClient.secret,
            metrics: metrics, recorder: recorder, socketURL: targets.clientSocketURL, clientFaults: clientFaults,
            modelSpec: setup.modelDriven ? scenario.model : nil, organizationUsers: setup.organizationUsers,
            runTag: String(epochStartMs, radix: 36), log: { [weak self] in self?.note($0) }, replay: options.replayPlan)
        self.context = context
        liveRecorder.withLockedValue { $0 = recorder }
        setupToken = setup.token
        directSocketURL = socketURL
        for (d, id) in setup.accountIds.enumerated() {
            let r = DocumentRecorder(
                document: d, resourceId: id, socketURL: socketURL, token: setup.token, recorder: recorder,
                ops: context.ops, clients: context.clientIndexes,
                fromRevisionZero: options.shard != nil,
                stallAtMs: d == 0 ? options.stallRecorderAtMs.map { clock.nowMs + $0 + 100 } : nil,
                visitEveryMs: spec.recorderVisitEveryMs, loop: context.clientLoop(d))
            recorders.append(r)
            guard await r.connect() else { throw LiveRunError("cannot open a websocket to \(socketURL) for \(id)") }
        }
        return Prepared(token: setup.token, recorder: recorder, context: context)
    }

    /// The recorders' watchdog, every 250 ms until cancelled (the run cancels it when it returns).
    func startRecorderWatchdog() -> Task<Void, Never> {
        Task { [weak self] in
            while !Task.isCancelled {
                self?.watchRecorders()
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    /// Each note's baseline (its revision and text now) must be known before anyone types.
    func waitForBaselines() async throws {
        let joinDeadline = clock.nowMs + 15_000
        while let waiting = recorders.first(where: { !$0.hasAnsweredAJoin }) {
            guard clock.nowMs < joinDeadline else {
                throw LiveRunError("the server did not answer a join of \(waiting.resourceId) within 15 s")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
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
                let connection = try await salesforce.connect(
                    username: sfUser.user, password: sfUser.password, clientId: options.salesforceClient.id,
                    clientSecret: options.salesforceClient.secret)
                let soql =
                    "SELECT Id, Name, Industry, BillingCity, BillingState, Type, Website, Phone, NumberOfEmployees FROM Account ORDER BY Id LIMIT \(scenario.documents)"
                let result = try await salesforce.query(soql, connection: connection, maxPages: 20)
                let inputs = result.records.compactMap(SalesforceAPI.account).map(AccountsStore.accountInput)
                let saved = try await whaler.saveAccounts(
                    inputs, senderID: "whalesim-setup", token: session.accessToken)
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
            throw LiveRunError(
                "the scenario needs \(scenario.documents) account notes; only \(ids.count) accounts are available")
        }
        var setup = Setup(
            token: session.accessToken, accountIds: Array(ids.prefix(scenario.documents)),
            organizationUsers: session.organizationUsers)
        if scenario.model != nil {
            if await whaler.offersModelExtensions(token: session.accessToken) {
                setup.modelDriven = true
                if let salesforce {
                    try await importContacts(
                        setup.accountIds, salesforceIds: sfIds, whaler: whaler, salesforce: salesforce,
                        token: session.accessToken)
                }
            } else {
                note(
                    "the server at \(whaler.baseURL) offers no whalesim GraphQL extensions (whalesimPage, the mutation reply): model pages are not driven and the model checker says unknown"
                )
            }
        }
        return setup
    }

    /// The account pages' contacts, imported as the app does (its Contact query per account,
    /// then `saveContacts`), so account-page users have cards to move.
    private func importContacts(
        _ accountIds: [String], salesforceIds: [String: String], whaler: WhalerAPI, salesforce: SalesforceAPI,
        token: String
    ) async throws {
        do {
            let sfUser = try salesforceCredentials(0)
            let connection = try await salesforce.connect(
                username: sfUser.user, password: sfUser.password, clientId: options.salesforceClient.id,
                clientSecret: options.salesforceClient.secret)
            for id in accountIds {
                guard let sf = salesforceIds[id] else { continue }
                let soql =
                    "SELECT id, accountId, firstName, lastName, title, phone, email from Contact WHERE AccountId = \(SalesforceAPI.soqlLiteral(sf))"
                let found = try await salesforce.query(soql, connection: connection, maxPages: 5).records
                let inputs = found.compactMap { o -> ContactInput? in
                    guard let cid = o["Id"] as? String ?? o["id"] as? String else { return nil }
                    return ContactInput(
                        accountID: id, salesforceID: cid,
                        firstName: o["FirstName"] as? String ?? o["firstName"] as? String ?? "",
                        lastName: o["LastName"] as? String ?? o["lastName"] as? String ?? "",
                        jobTitle: o["Title"] as? String ?? o["title"] as? String,
                        email: o["Email"] as? String ?? o["email"] as? String,
                        phone: o["Phone"] as? String ?? o["phone"] as? String)
                }
                if !inputs.isEmpty {
                    _ = try await whaler.mutate(.saveContacts(inputs), senderID: "whalesim-setup", token: token)
                }
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
}
