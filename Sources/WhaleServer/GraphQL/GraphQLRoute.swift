import Foundation
import WhaleModel
import GraphQL
import NIOCore
import NIOHTTP1

/// `POST /query` (and `GET` with `?query=`): the GraphQL API behind the original's raw
/// `Authorization: <JWT>` header (`Bearer` also accepted). A missing or bad token gets HTTP 403
/// with code 4003, as the original's middleware answers; a malformed body gets HTTP 400 with a
/// GraphQL error. With `Whalesim-Protocol: 2` the response also carries
/// `extensions.whalesim.mutations` (``MutationLog``).
struct GraphQLRoute: Sendable {
    let server: ReferenceServer
    let api: WhalerGraphQLAPI

    init(server: ReferenceServer) {
        self.server = server
        api = server.graphQL
    }

    func handle(_ request: ServerRequest) async throws -> ServerResponse {
        let userId: String
        do {
            userId = try server.tokens.verify(
                request.header("authorization").map(AuthRoutes.stripBearer), now: server.now())
        } catch {
            server.metrics.error("4003")
            return RESTEnvelope.error(4003, error.description, status: .forbidden).response
        }
        guard let caller = server.model.caller(userId: userId) else {
            server.metrics.error("4003")
            return RESTEnvelope.error(4003, "Invalid authentication token: no such user", status: .forbidden).response
        }
        let graphQLRequest: GraphQLRequest
        if request.method == NIOHTTP1.HTTPMethod.GET {
            guard let query = request.query["query"] else { return badRequest("a GET needs ?query=") }
            graphQLRequest = GraphQLRequest(query: query, operationName: request.query["operationName"])
        } else {
            guard let body = request.body(limit: 1 << 20) else { return badRequest("body over 1 MB") }
            do { graphQLRequest = try JSONDecoder().decode(GraphQLRequest.self, from: body) } catch {
                return badRequest(
                    "the body is not a GraphQL request ({\"query\", \"operationName\", \"variables\"}): \(error)")
            }
        }
        // `Whalesim-Protocol: 2` (the load runner) also gets each mutation's model reply in the
        // response's `extensions`; any other value, or none, gets the original's response.
        let log = request.header(MutationLog.header) == MutationLog.headerValue ? MutationLog() : nil
        let context = GraphQLContext(caller: caller, hub: server.model, server: server, mutationLog: log)
        let result: GraphQLResult
        switch try server.graphQLDocuments.document(for: graphQLRequest.query) {
        case .valid(let document):
            result = try await GraphQL.execute(
                schema: api.schema.schema, documentAST: document, rootValue: api.resolver, context: context,
                variableValues: graphQLRequest.variables, operationName: graphQLRequest.operationName)
        case .invalid(let errors):
            result = GraphQLResult(errors: errors)
        }
        if !result.errors.isEmpty { server.metrics.error("graphql") }
        var data = try JSONEncoder().encode(result)
        if let log { data = try log.splice(into: data) }
        return .json(data)
    }

    private func badRequest(_ message: String) -> ServerResponse {
        server.metrics.error("graphqlMalformed")
        let result = GraphQLResult(data: nil, errors: [GraphQLError(message: message)])
        let data = (try? JSONEncoder().encode(result)) ?? Data()
        return .json(data, status: .badRequest)
    }
}
