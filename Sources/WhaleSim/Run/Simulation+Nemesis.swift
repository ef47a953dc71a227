import WhaleProtocol

extension Simulation {
    /// Schedules every nemesis's first strike (fixed `at` ticks, or the first `every` draw).
    mutating func scheduleNemeses() {
        for (n, spec) in scenario.nemeses.enumerated() {
            if let every = spec.every {
                queue.schedule(
                    .strike(nemesis: n),
                    at: DelayDistribution.exponential(mean: every, max: every * 10).sample(using: &nemesisRandom) + 1)
            } else {
                for time in spec.at { queue.schedule(.strike(nemesis: n), at: time) }
            }
        }
    }

    /// Nemesis `n` strikes now; a periodic one schedules its next strike.
    mutating func strike(_ n: Int) {
        let spec = scenario.nemeses[n]
        let clients = sessions.count
        switch spec.kind {
        case .disconnect:
            let c = nemesisRandom.int(in: 0...(clients - 1))
            disconnect(c, cause: "nemesis", reconnectAfter: spec.duration)
        case .partition:
            var cut: [Int] = []
            let size = nemesisRandom.int(in: 1...max(1, clients / 2))
            var candidates = Array(0..<clients)
            for _ in 0..<size {
                cut.append(candidates.remove(at: nemesisRandom.int(in: 0...(candidates.count - 1))))
            }
            cut.sort()
            for c in cut { network.partition(c) }
            record(.note("partition cuts off \(cut.map { clientIds[$0].rawValue }.joined(separator: ","))"))
            partitions.append(cut)
            queue.schedule(.endPartition(index: partitions.count - 1), at: clock.now + spec.duration)
        case .serverRestart:
            crashServer(restartAfter: spec.duration)
        case .powerLoss:
            losePower()
            crashServer(restartAfter: spec.duration)
        case .slowClient:
            let c = nemesisRandom.int(in: 0...(clients - 1))
            network.setSlowFactor(c, spec.factor)
            record(.note("\(clientIds[c]) link \(spec.factor)x slower"))
            queue.schedule(.endSlow(client: c), at: clock.now + spec.duration)
        }
        if let every = spec.every {
            let gap = DelayDistribution.exponential(mean: every, max: every * 10).sample(using: &nemesisRandom)
            queue.schedule(.strike(nemesis: n), at: clock.now + max(1, gap))
        }
    }

    mutating func endPartition(_ clients: [Int]) {
        for c in clients {
            for delivery in network.heal(c, now: clock.now) { queue.schedule(.deliver(delivery), at: delivery.time) }
        }
        record(.note("partition of \(clients.map { clientIds[$0].rawValue }.joined(separator: ",")) heals"))
    }

    /// The start of the liveness phase: workload, nemeses and fault windows stop, partitions heal, links
    /// return to normal speed, the server comes back, every client reconnects.
    mutating func heal() {
        queue.removeAll { $0.isWorkloadOrNemesis }
        record(.heal)
        closeFaultWindows()
        for c in sessions.indices {
            network.setSlowFactor(c, 1)
            for delivery in network.heal(c, now: clock.now) { queue.schedule(.deliver(delivery), at: delivery.time) }
        }
        if server == nil { restartServer() }
        for c in sessions.indices where !network.isConnected(c) {
            queue.schedule(.connect(client: c), at: clock.now + 1)
        }
    }
}
