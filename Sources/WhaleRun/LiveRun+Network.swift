import WhaleSim

extension LiveRun {
    /// Network faults go through the runner's TCP proxy.
    func shapeNetwork(_ fault: ScheduledFault, rng: inout SimRandom) async {
        note("a network fault at \(fault.start) ms needs the runner's TCP proxy, which this build lacks")
    }

    /// Ends every fault: the server back up, the network healed.
    func healEverything() async {
        if let server = embeddedServer, !server.isUp {
            do { try await server.restart() } catch { note("the embedded server did not restart: \(error)") }
        }
    }
}
