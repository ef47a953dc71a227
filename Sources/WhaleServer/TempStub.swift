import Foundation
import Logging
import WhaleProtocol
import Graphiti
import GraphQL
final class ModelHub: Sendable {
    let initialNoteTexts: [String: String] = [:]
    init(storage: any ServerStorage, committer: GroupCommitter, configuration: ServerConfiguration, logger: Logger) throws {}
    struct Cred { var userId: String; var passwordHash: String }
    func credential(email: String) -> Cred? { nil }
    func caller(userId: String) -> Caller? { nil }
    func poolBelongs(_ poolId: String, to caller: Caller) -> Bool { false }
    func noteBelongs(_ accountId: String, to caller: Caller) -> Bool { false }
    func userResponse(userId: String) -> [String: Any]? { nil }
    func joinPool(_ connection: SocketConnection) {}
    func leavePool(_ client: ClientID) {}
}
struct GraphQLContext: Sendable { let caller: Caller; let hub: ModelHub; let server: ReferenceServer }
struct WhalerResolver: Sendable {}
struct WhalerGraphQLAPI: API {
    let resolver = WhalerResolver()
    let schema: Schema<WhalerResolver, GraphQLContext>
    init() throws { schema = try Schema<WhalerResolver, GraphQLContext> { Query { } } }
}
