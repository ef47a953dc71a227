import Foundation
import WhaleProtocol
@testable import WhaleModel

/// The seed of `Fixtures/whaler/seed.json` and callers from it.
enum Fixture {
    static let seedURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/whaler/seed.json")

    static func seed() throws -> ModelSeed { try ModelSeed.load(from: seedURL) }

    /// A server on the seed; passwords "hashed" by a visible prefix.
    static func server() throws -> ModelServer {
        ModelServer(configuration: .init(serverId: "srv"), restoring: try seed().changes { "hash:" + $0 })
    }

    static let ann = Caller(userId: "u-ann", organizationId: "org-acme")  // admin, Acme
    static let bo = Caller(userId: "u-bo", organizationId: "org-acme")
    static let dee = Caller(userId: "u-dee", organizationId: "org-globex")  // admin, Globex
}

extension ModelServer {
    /// The seed's account as a move to `state`.
    func move(_ accountId: String, to state: KanbanState) -> Mutation {
        var input = AccountInput(self.state.accounts[accountId]!)
        input.state = state.rawValue
        return .saveAccounts([input])
    }
}

extension Array where Element == ModelServer.Action {
    var persisted: [ModelChange] {
        var all: [ModelChange] = []
        for case .persist(let changes) in self { all += changes }
        return all
    }
    /// The code of the first `error` sent.
    var errorCode: ProtocolErrorCode? {
        for case .send(_, let envelope) in self { if case .error(let e) = envelope.message { return e.code } }
        return nil
    }
    var sends: [(ClientID, ServerEnvelope)] { compactMap { if case .send(let c, let e) = $0 { (c, e) } else { nil } } }
    var reply: Result<MutationReply, ModelError>? {
        compactMap { if case .reply(_, let r) = $0 { r } else { nil } }.first
    }
}
