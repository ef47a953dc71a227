import WhaleEmbedded
import WhaleLoad

extension ServerBench {
    /// 3. Idle sockets: memory per socket and capacity, raw and the reference server (each socket
    /// in the organization pool).
    func measureIdleSockets() async throws {
        let idleSockets = options.idleSockets
        let rawIdle = try ChildServer(["bench", "raw-server", "--mode", "echo"])
        let rawPerSocket = try await idleMemory(rawIdle, url: rawIdle.socketURL, headers: [("ObjectId", "idle")])
        await rawIdle.stopped()
        let server = try ChildServer(serveArguments + ["--database", ":memory:"])
        let (token, _, _) = try await signIn(server, accounts: 0)
        let organization = try await organizationId(server, token: token)
        let servePerSocket = try await idleMemory(
            server, url: server.socketURL + "?protocol=2",
            headers: [("ObjectId", organization), ("Authorization", token)])
        await server.stopped()
        output("idle sockets (\(idleSockets) held, each in the organization pool):")
        output("  raw                    \(kb(rawPerSocket.bytes)) KB per socket")
        output(
            "  serve                  \(kb(servePerSocket.bytes)) KB per socket (target ≤ 48); held \(servePerSocket.held) of \(idleSockets)"
        )
    }

    private func organizationId(_ server: ChildServer, token: String) async throws -> String {
        let answer = try await postJSON(server.baseURL + "/query", ["query": "{ organization { id } }"], token: token)
        guard let id = ((answer["data"] as? [String: Any])?["organization"] as? [String: Any])?["id"] as? String else {
            throw BenchError("bench: no organization: \(answer)")
        }
        return id
    }

    /// Server memory per idle socket: its RSS with `idleSockets` open minus before, divided.
    private func idleMemory(_ server: ChildServer, url: String, headers: [(String, String)]) async throws -> (
        bytes: Double, held: Int
    ) {
        let idleSockets = options.idleSockets
        try await Task.sleep(for: .milliseconds(300))
        let before = server.residentBytes ?? 0
        let sockets = try await SocketLoad.openAll(idleSockets) { _ in LiveSocket(url: url, headers: headers) { _ in } }
        try await Task.sleep(for: .seconds(1))
        let after = server.residentBytes ?? 0
        let held = sockets.filter { $0.ending == nil }.count
        await SocketLoad.closeAll(sockets)
        return (Double(after - before) / Double(max(idleSockets, 1)), held)
    }
}
