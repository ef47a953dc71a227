import Foundation
import WhaleModel

/// The hub's side of whalesim's GraphQL extensions (``WhalerResolver/whalesimPage(context:arguments:)``,
/// ``WhalerResolver/whalesimModelState(context:arguments:)``). Refusals are the model's own
/// (`notFound` for an unknown or foreign account), as GraphQL errors.
extension ModelHub {
    /// `ModelServer.answer` as JSON (`JSONEncoder`, sorted keys): what `ModelClient` takes in.
    func whalesimPage(_ query: ModelQuery, _ caller: Caller) throws -> String {
        let snapshot = try self.query { try $0.answer(query, caller) }
        // Encoded outside the lock.
        return String(decoding: try JSONEncoder.sortedKeys.encode(snapshot), as: UTF8.self)
    }

    /// Every record of the caller's organization as its `ModelRecord.line`, sorted.
    func whalesimModelState(_ caller: Caller) throws -> [String] {
        try query { try $0.organizationRecords(caller) }.map(\.line).sorted()
    }
}
