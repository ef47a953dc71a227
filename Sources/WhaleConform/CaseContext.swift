import Foundation
import NIOConcurrencyHelpers
import WhaleLoad
import WhaleOT
import WhaleProtocol

/// Who a case acts as: two users of one organization and one of another.
enum Who: String, Sendable { case member, colleague, outsider }

/// What a run shares between its cases: the HTTP client, the signed-in users, the fault proxy
/// (started on first use), and the run's tag that makes its accounts' ids fresh.
final class RunState: Sendable {
    let target: ConformTarget
    let api: ConformAPI
    /// Unique per run, so a rerun against a server that keeps its notes starts from fresh ones.
    let tag: String
    private let sessions = NIOLockedValueBox<[Who: ConformAPI.Session]>([:])
    private let proxyBox = NIOLockedValueBox<FaultProxy?>(nil)
    let accounts = Counter()

    init(target: ConformTarget, tag: String) {
        self.target = target
        self.tag = tag
        let executor = HTTPExecutors.make(.preferred, caFile: nil, maxConnections: 16)
        api = ConformAPI(baseURL: target.baseURL, executor: executor)
    }

    func login(_ who: Who) async throws(ConformFailure) -> ConformAPI.Session {
        if let known = sessions.withLockedValue({ $0[who] }) { return known }
        let login =
            switch who {
            case .member: target.member
            case .colleague: target.colleague
            case .outsider: target.outsider
            }
        do {
            let session = try await api.login(email: login.email, password: login.password)
            sessions.withLockedValue { $0[who] = session }
            return session
        } catch {
            throw ConformFailure("sign-in of \(login.email) failed: \(error)")
        }
    }

    /// Tokens issued before a restart may die with it (a random key per start): sign in again.
    func forgetSessions() { sessions.withLockedValue { $0 = [:] } }

    /// The fault proxy in front of the server, started on first use.
    func proxy() async throws(ConformFailure) -> FaultProxy {
        if let running = proxyBox.withLockedValue({ $0 }) { return running }
        do {
            let started = try await FaultProxy.start(
                upstreamHost: target.host == "localhost" ? "127.0.0.1" : target.host, upstreamPort: target.port,
                seed: 22)
            proxyBox.withLockedValue { $0 = started }
            return started
        } catch {
            throw ConformFailure("the fault proxy did not start: \(error)")
        }
    }

    func stop() async {
        if let proxy = proxyBox.withLockedValue({ $0 }) { await proxy.stop() }
    }
}

/// What a case's script works with: the target, sign-in, fresh notes, sockets (direct or through
/// the fault proxy), GraphQL, and `expect` for its checks.
final class CaseContext: Sendable {
    let run: RunState
    let caseId: String
    private let sockets = NIOLockedValueBox<[ConformSocket]>([])
    private let names = Counter()

    init(run: RunState, caseId: String) {
        self.run = run
        self.caseId = caseId
    }

    var target: ConformTarget { run.target }
    var version: ProtocolVersion { target.protocolVersion }
    var v2: Bool { version == .v2 }

    func login(_ who: Who) async throws(ConformFailure) -> ConformAPI.Session { try await run.login(who) }

    /// A new account of the member's organization, so its note starts empty at revision 0.
    func freshAccount() async throws(ConformFailure) -> String { try await freshAccountRecord().id }

    /// A new account of the member's organization (saveAccounts with a fresh salesforceID).
    func freshAccountRecord() async throws(ConformFailure) -> CreatedAccount {
        let session = try await login(.member)
        let salesforceID = "conform-\(run.tag)-\(run.accounts.next())"
        let name = "Conformance \(caseId)"
        let saved: [(id: String, salesforceID: String)]
        do {
            saved = try await run.api.saveAccounts(
                [["salesforceID": salesforceID, "name": name]], senderID: "conform-setup", token: session.accessToken)
        } catch {
            throw ConformFailure("saveAccounts (a fresh account for the case) failed: \(error)")
        }
        guard let id = saved.first(where: { $0.salesforceID == salesforceID })?.id else {
            throw ConformFailure("saveAccounts did not return the account \(salesforceID) it created: \(saved)")
        }
        return CreatedAccount(id: id, salesforceID: salesforceID, name: name)
    }

    /// A connected socket on `pool` (an account id for a note page, the organization id for the
    /// board), signed in as `who` unless `token` says otherwise; through the fault proxy when
    /// `viaProxy`, tagged with its name so the proxy can hold its bytes.
    func socket(
        _ who: Who, pool: String?, name: String? = nil, token: String?? = nil, viaProxy: Bool = false,
        protocolVersion: ProtocolVersion? = nil, receiveBufferBytes: Int? = nil
    ) async throws(ConformFailure) -> ConformSocket {
        let label = name ?? "\(who.rawValue)\(names.next())"
        let bearer: String?
        if let token { bearer = token } else { bearer = try await login(who).accessToken }
        var headers: [(String, String)] = []
        if let pool { headers.append(("ObjectId", pool)) }
        if let bearer { headers.append(("Authorization", bearer)) }
        var url = target.socketURL
        if viaProxy {
            let proxy = try await run.proxy()
            url = "ws://127.0.0.1:\(proxy.port)/socket"
        }
        var query: [String] = []
        if (protocolVersion ?? version) == .v2 { query.append("protocol=2") }
        if viaProxy { query.append("whalesim-client=\(proxyTag(label))") }
        if !query.isEmpty { url += "?" + query.joined(separator: "&") }
        let socket = ConformSocket(
            url: url, headers: headers, name: label, timeout: target.timeout, receiveBufferBytes: receiveBufferBytes)
        sockets.withLockedValue { $0.append(socket) }
        guard await socket.connected() else {
            throw ConformFailure(
                "\(label): the websocket upgrade to \(url) failed: \(socket.ending?.error ?? "no answer within \(target.timeout)")"
            )
        }
        return socket
    }

    /// The proxy's client tag of a socket named `name` in this case.
    func proxyTag(_ name: String) -> String {
        (caseId + "-" + name).map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "-" }.reduce(into: "") {
            $0.append($1)
        }
    }

    /// A socket on the note's account pool, joined to it: the client and the join answer.
    func member(_ who: Who, note: String, name: String, viaProxy: Bool = false) async throws(ConformFailure) -> (
        NoteClient, ResourceConnectionConf
    ) {
        let socket = try await socket(who, pool: note, name: name, viaProxy: viaProxy)
        let client = NoteClient(socket: socket, resourceId: note, version: version, tag: "\(caseId)-\(name)")
        let conf = try await client.join()
        return (client, conf)
    }

    /// A fresh note holding `text`, written by a setup client: its id and revision. The text goes
    /// out in ops of at most 240 UTF-8 bytes, pipelined (each at the revision its predecessor
    /// makes), so it fits the original protocol's 512-byte messages. The setup client stays a
    /// member until the case ends, so the note never empties behind the case's back (only
    /// `sessions.leave-and-rejoin` means to test that).
    func note(_ text: String) async throws(ConformFailure) -> (id: String, revision: Int) {
        let id = try await freshAccount()
        guard !text.isEmpty else { return (id, 0) }
        let (writer, conf) = try await member(.member, note: id, name: "setup")
        try expect(
            conf.revision == 0 && (conf.initialState ?? "").isEmpty,
            "a fresh note \(id) must start empty at revision 0; the join said revision \(conf.revision), text \(quoted(conf.initialState ?? ""))"
        )
        var written = 0, rev = conf.revision, last = ""
        for chunk in Self.chunks(text, maxBytes: 240) {
            last = writer.send(Operation.replace(in: written, at: written, inserting: chunk), rev: rev).messageId
            written += chunk.unicodeScalars.count
            rev += 1
        }
        _ = try await writer.takeOpOrError(last)
        return (id, rev)
    }

    /// `text` cut into pieces of at most `maxBytes` UTF-8 bytes, at scalar boundaries.
    static func chunks(_ text: String, maxBytes: Int) -> [String] {
        var pieces: [String] = [], current = String.UnicodeScalarView(), bytes = 0
        for scalar in text.unicodeScalars {
            let size = String(scalar).utf8.count + (scalar.value < 0x20 || scalar == "\"" || scalar == "\\" ? 5 : 0)
            if bytes + size > maxBytes, !current.isEmpty {
                pieces.append(String(current))
                current = String.UnicodeScalarView()
                bytes = 0
            }
            current.append(scalar)
            bytes += size
        }
        if !current.isEmpty { pieces.append(String(current)) }
        return pieces
    }

    /// The note's text and revision as a fresh join reads them.
    func read(_ note: String, as who: Who = .colleague) async throws(ConformFailure) -> ResourceConnectionConf {
        let (reader, conf) = try await member(who, note: note, name: "reader\(names.next())")
        await reader.close()
        return conf
    }

    /// GraphQL as `who`; GraphQL errors are thrown as the failure's evidence.
    func graphQL(_ who: Who, _ query: String, variables: [String: Any] = [:], what: String) async throws(ConformFailure)
        -> [String: Any]
    {
        let session = try await login(who)
        do {
            return try await run.api.graphQL(query, variables: variables, token: session.accessToken)
        } catch {
            throw ConformFailure("\(what): \(error)")
        }
    }

    /// GraphQL as `who` that must be refused: the errors, or nil when it was accepted.
    func graphQLRefusal(_ who: Who, _ query: String, variables: [String: Any] = [:]) async throws(ConformFailure)
        -> String?
    {
        let session = try await login(who)
        do {
            _ = try await run.api.graphQLResponse(query, variables: variables, token: session.accessToken)
            return nil
        } catch {
            return error.description
        }
    }

    func expect(_ condition: Bool, _ evidence: @autoclosure () -> String) throws(ConformFailure) {
        if !condition { throw ConformFailure(evidence()) }
    }

    /// Closes every socket the case opened.
    func closeAll() async {
        for socket in sockets.withLockedValue({ $0 }) { await socket.close() }
    }
}

/// Text quoted for evidence, with control characters and non-ASCII escaped so a line shows
/// exactly which scalars differ.
func quoted(_ text: String, limit: Int = 120) -> String {
    var out = "\""
    for scalar in text.unicodeScalars.prefix(limit) {
        switch scalar {
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        default:
            if scalar.isASCII, scalar.value >= 0x20 {
                out.unicodeScalars.append(scalar)
            } else {
                out += String(format: "\\u{%X}", scalar.value)
            }
        }
    }
    if text.unicodeScalars.count > limit { out += "…(\(text.unicodeScalars.count) scalars)" }
    return out + "\""
}
