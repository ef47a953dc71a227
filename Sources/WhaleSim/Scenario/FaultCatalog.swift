import WhaleProtocol

/// The switchable code faults (``WhaleProtocol/Fault``) by name, for validating scenario files
/// and `--fault` options.
public enum FaultCatalog {
    public static var names: [String] { Fault.allCases.map(\.rawValue) }

    /// `name  summary (exercised by: scenario, ...)` lines (two spaces between), names first so
    /// `cut -d' ' -f1` lists them, for `whalesim simulate --list-faults`.
    public static var listing: [String] {
        Fault.allCases.map { fault in
            if Scenario.liveServerOnly(fault) != nil {
                return
                    "\(fault.rawValue)  \(fault.summary) (live server only: whalesim serve --fault, caught by whalesim conform)"
            }
            let scenarios = scenarios(exercising: fault)
            return
                "\(fault.rawValue)  \(fault.summary) (exercised by: \(scenarios.isEmpty ? "no built-in scenario" : scenarios.joined(separator: ", ")))"
        }
    }
}
