import WhaleProtocol

extension Simulation {
    /// Schedules every windowed fault's switching on and off (``Scenario/faultIntervals(seed:runLength:)``
    /// over the safety phase). Whole-run faults are on from the start and never switched, so
    /// their runs are exactly what they were before fault windows existed.
    mutating func scheduleFaultWindows() {
        for interval in scenario.faultIntervals(seed: seed, runLength: scenario.safetyTicks + 1) {
            guard let fault = Fault(rawValue: interval.name), !wholeRunFaults.contains(fault) else { continue }
            queue.schedule(.switchFault(fault, on: true), at: interval.start)
            queue.schedule(.switchFault(fault, on: false), at: interval.end)
        }
    }

    /// Switches `fault` in every client session, model client and the server (and the
    /// configuration a restarted server starts with), and notes it for the timeline and the
    /// report's fault windows ("fault F on" / "fault F off").
    mutating func switchFault(_ fault: Fault, on: Bool) {
        guard activeFaults.contains(fault) != on else { return }
        if on { activeFaults.insert(fault) } else { activeFaults.remove(fault) }
        for c in sessions.indices { sessions[c].faults = activeFaults }
        server?.faults = activeFaults
        serverConfiguration.faults = activeFaults
        if model != nil {
            for c in model!.clients.indices { model!.clients[c].faults = activeFaults }
        }
        record(.note("fault \(fault.rawValue) \(on ? "on" : "off")"))
    }

    /// At the heal, like the nemeses: every fault window still open closes (whole-run faults stay on).
    mutating func closeFaultWindows() {
        for fault in activeFaults.faults where !wholeRunFaults.contains(fault) {
            switchFault(fault, on: false)
        }
    }
}
