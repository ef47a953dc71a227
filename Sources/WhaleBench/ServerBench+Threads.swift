extension ServerBench {
    /// 4. One CPU against two (the server process pinned with taskset).
    func measureThreads() async throws {
        let one = try await acks(serveArguments + ["--database", ":memory:"], cpus: "0")
        let two = try await acks(serveArguments + ["--database", ":memory:"], cpus: "0,1")
        output(
            "server on one CPU vs two (:memory:, \(options.clients) clients): \(Int(one)) vs \(Int(two)) acks/s = \(ratio(two, one))×"
        )
    }
}
