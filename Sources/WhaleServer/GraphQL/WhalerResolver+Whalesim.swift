import Graphiti
import WhaleModel

/// whalesim's two query fields for the load runner, which drives `ModelClient` against the live
/// server and then runs the model checker. The original's clients never ask for them.
extension WhalerResolver {
    struct PageArguments: Codable, Sendable { let accountID: GQL.ID? }

    /// `whalesimPage(accountID: ID): String!`: the page fetch a `ModelClient` makes, as the
    /// JSON of a `PoolSnapshot` stamped with its pool's `seq`. No `accountID` is the board.
    func whalesimPage(context: GraphQLContext, arguments: PageArguments) throws -> String {
        try context.hub.whalesimPage(
            arguments.accountID.map { .accountPage(accountID: $0.value) } ?? .board, context.caller)
    }

    /// `whalesimModelState: [String!]!`: the caller's organization's records as sorted
    /// "key json" lines, the final state the model checker compares.
    func whalesimModelState(context: GraphQLContext, arguments: NoArguments) throws -> [String] {
        try context.hub.whalesimModelState(context.caller)
    }
}
