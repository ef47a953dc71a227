import NIOConcurrencyHelpers
import WhaleModel

/// What one user's app has cached, as the app's storage layer keeps it: the accounts its
/// Salesforce search found, the board's cards and each account page it has shown. The stores
/// write it; the user's behaviour and the pages read it as read-only snapshots (``Contents``).
///
/// ```swift
/// let storage = AppStorage()
/// storage.write { $0.board = rows }
/// let cards = storage.snapshot.board
/// ```
/// (A model-driven page keeps its records in its ``ModelClient``, the simulator's state machine:
/// its confirmed records are that page's storage.)
final class AppStorage: Sendable {
    /// Everything cached, by what the screens show.
    struct Contents: Sendable {
        /// Accounts the last Salesforce search found (what `track` picks from).
        var imported: [AccountInput] = []
        /// The board's cards as last shown.
        var board: [WhalerAPI.AccountRow] = []
        /// Account pages as last shown, by account id.
        var accountPages: [String: AccountPage] = [:]
    }

    /// An account page as shown: how many contacts and open tasks it lists.
    struct AccountPage: Sendable, Hashable {
        var contacts: Int
        var tasks: Int
    }

    private let contents = NIOLockedValueBox(Contents())

    init() {}

    /// A copy of what is cached now.
    var snapshot: Contents { contents.withLockedValue { $0 } }

    /// Changes the cache (one lock: a page's answer may land on another thread than the user's).
    @discardableResult
    func write<T>(_ change: (inout Contents) -> T) -> T { contents.withLockedValue(change) }
}
