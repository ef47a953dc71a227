import WhaleProtocol

extension Simulation {
    /// Schedules every windowed fault's switching on and off (``Scenario/faultIntervals(seed:runLength:)``
    /// over the safety phase). Whole-run faults are on from the start and never switched, so
    /// their runs are exactly what they were before fault windows existed.
    mutating func scheduleFaultWindows() {
        let intervals = scenario.faultIntervals(seed: seed, runLength: scenario.safetyTicks + 1)
        for change in FaultInterval.switches(intervals) {
            guard let fault = Fault(rawValue: change.name), !wholeRunFaults.contains(fault) else { continue }
            queue.schedule(.switchFault(fault, on: change.on), at: change.tick)
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
        record(.note(FaultSwitch(tick: clock.now, name: fault.rawValue, on: on).description))
    }

    /// At the heal, like the nemeses: every fault window still open closes (whole-run faults stay on).
    mutating func closeFaultWindows() {
        for fault in activeFaults.faults where !wholeRunFaults.contains(fault) {
            switchFault(fault, on: false)
        }
    }
}
