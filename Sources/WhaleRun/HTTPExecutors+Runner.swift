import WhaleLoad

enum HTTPExecutors {
    /// The executor the runner's virtual clients share.
    static func runnerDefault() -> any HTTPExecutor { FoundationHTTPExecutor(maxConnections: 256) }
}
