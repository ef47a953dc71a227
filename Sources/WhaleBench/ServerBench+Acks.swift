import WhaleEmbedded

extension ServerBench {
    /// docChange→ack round trips per second of `whalesim serve` started with `arguments` (pinned to
    /// `cpus` with taskset if given), `clients` clients with a note each.
    func acks(_ arguments: [String], cpus: String? = nil) async throws -> Double {
        let server = try ChildServer(arguments, cpus: cpus)
        defer { server.stop() }
        let (token, _, accounts) = try await signIn(server, accounts: options.clients)
        return try await SocketLoad.serverAcks(
            url: server.socketURL, token: token, accounts: accounts, seconds: options.seconds)
    }

    /// Signs in and makes `accounts` fresh accounts (tracked by the user) to put notes on.
    func signIn(_ server: ChildServer, accounts count: Int) async throws -> (
        token: String, userId: String, accounts: [String]
    ) {
        try await BenchAccounts.signIn(server, accounts: count, email: options.email, password: options.password)
    }
}
