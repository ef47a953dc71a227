/// The one way the app's stores change what the user sees before the server has answered: the
/// change goes into storage at once (`show`, which returns how to undo it), the request is sent,
/// and a refusal undoes the change (rollback) while an answer is written over the guess
/// (`confirm`).
///
/// ```swift
/// let taken = await Optimistic.mutate(storage, show: { c in
///     let before = c.board[i]; c.board[i] = moved
///     return { $0.board[i] = before }
/// }, send: { try await network.saveAccounts([input], ...) })
/// ```
/// A model-driven page does the same inside its ``ModelClient``: a mutation shows in its view
/// as a pending overlay and a refusal drops it out (see ``ModelPage/submit(_:)``).
enum Optimistic {
    /// Undoes one optimistic change.
    typealias Undo = @Sendable (inout AppStorage.Contents) -> Void

    /// Shows, sends, then confirms or rolls back; the reply, or nil when the server refused.
    @discardableResult
    static func mutate<Reply>(
        _ storage: AppStorage, show: (inout AppStorage.Contents) -> Undo,
        send: () async throws(APIError) -> Reply,
        confirm: (Reply, inout AppStorage.Contents) -> Void = { _, _ in }
    ) async -> Reply? {
        let undo = storage.write(show)
        do {
            let reply = try await send()
            storage.write { confirm(reply, &$0) }
            return reply
        } catch {
            storage.write(undo)
            return nil
        }
    }
}
