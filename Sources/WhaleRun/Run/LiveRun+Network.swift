import WhaleLoad
import WhaleSim

extension LiveRun {
    /// Whether the scenario needs the TCP proxy (partitions, slow clients, network faults).
    var needsProxy: Bool {
        !spec.networkFaults.isEmpty || scenario.nemeses.contains { $0.kind == .partition || $0.kind == .slowClient }
    }

    /// Names of `percent`% of the users started so far (at least one), drawn from the seed.
    func pickClients(percent: Int, rng: inout SimRandom) -> Set<String> {
        var names = allUsers.map(\.name)
        guard !names.isEmpty else { return [] }
        for i in stride(from: names.count - 1, to: 0, by: -1) { names.swapAt(i, rng.int(in: 0...i)) }
        return Set(names.prefix(max(1, names.count * percent / 100)))
    }

    /// Applies a network fault through the proxy for its window.
    func shapeNetwork(_ fault: ScheduledFault, rng: inout SimRandom) async {
        guard let proxy else {
            note("a network fault at \(fault.start) ms needs the runner's TCP proxy")
            return
        }
        let now = clock.nowMs
        let duration = fault.duration
        var undo: @Sendable () -> Void = {}
        var touched: Set<String>?
        switch fault.what {
        case .nemesis(let n) where n.kind == .partition:
            let cut = pickClients(percent: 50, rng: &rng)
            proxy.partition(clients: cut)
            touched = cut
            _ = addWindow(
                kind: "partition", label: "partition cuts off \(cut.count) clients", start: now, duration: duration)
            undo = { proxy.heal(clients: cut) }
        case .nemesis(let n):
            // slow-client: one client's link `factor` times slower (5 ms a chunk per factor).
            let slow = pickClients(percent: 0, rng: &rng)
            proxy.shape(ProxyConditions(latencyMs: 5 * n.factor), clients: slow)
            touched = slow
            _ = addWindow(
                kind: "slow-client", label: "\(slow.sorted().joined()) link \(n.factor)x slower", start: now,
                duration: duration)
            undo = { proxy.unshape(clients: slow) }
        case .network(let f):
            let who: Set<String>? = f.clientsPercent >= 100 ? nil : pickClients(percent: f.clientsPercent, rng: &rng)
            let label = who.map { "\($0.count) clients" } ?? "every client"
            touched = who
            switch f.kind {
            case .latency:
                proxy.shape(ProxyConditions(latencyMs: f.latencyMs, jitterMs: f.jitterMs), clients: who)
                _ = addWindow(
                    kind: "latency", label: "+\(f.latencyMs)±\(f.jitterMs) ms for \(label)", start: now,
                    duration: duration)
                undo = { proxy.unshape(clients: who) }
            case .bandwidth:
                proxy.shape(ProxyConditions(bandwidthBytesPerSecond: f.bytesPerSecond), clients: who)
                _ = addWindow(
                    kind: "bandwidth", label: "\(f.bytesPerSecond) B/s for \(label)", start: now, duration: duration)
                undo = { proxy.unshape(clients: who) }
            case .partition:
                proxy.partition(clients: who)
                _ = addWindow(kind: "partition", label: "partition cuts off \(label)", start: now, duration: duration)
                undo = { proxy.heal(clients: who) }
            case .drop:
                proxy.drop(clients: who)
                _ = addWindow(
                    kind: "drop", label: "connections of \(label) reset", start: now, duration: max(duration, 1))
            case .halfOpen:
                proxy.halfOpen(clients: who)
                _ = addWindow(
                    kind: "half-open", label: "half-open connections for \(label)", start: now, duration: duration)
                undo = { proxy.endHalfOpen(clients: who) }
            }
        }
        let end = undo
        let label = "a \(fault.what.name) window"
        let who = touched
        Task {
            try? await Task.sleep(for: .milliseconds(duration))
            end()
            self.measureConvergence(after: label, clients: who)
        }
    }

    /// Ends every fault: the server back up, the network healed.
    func healEverything() async {
        if let server = embeddedServer, !server.isUp {
            do { try await server.restart() } catch { note("the embedded server did not restart: \(error)") }
        }
        proxy?.healAll()
    }
}

extension LiveRun.ScheduledFault.What {
    var name: String {
        switch self {
        case .nemesis(let n): n.kind.rawValue
        case .network(let f): f.kind.rawValue
        }
    }
}
