/// The socket URLs the runner opens: the target's websocket URL (which may carry a query of its
/// own) with the runner's parameters appended.
enum SocketURL {
    /// `base` with `query` (`a=1&b=2`) appended after `?`, or after `&` when `base` has a query.
    static func appending(_ query: String, to base: String) -> String {
        base + (base.contains("?") ? "&" : "?") + query
    }
}
