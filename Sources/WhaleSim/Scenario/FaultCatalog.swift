import WhaleProtocol

/// The switchable code faults (``WhaleProtocol/Fault``) by name, for validating scenario files
/// and `--fault` options.
public enum FaultCatalog {
    public static var names: [String] { Fault.allCases.map(\.rawValue) }

    /// `name  summary` lines (two spaces between), names first so `cut -d' ' -f1` lists them,
    /// for `whalesim simulate --list-faults`.
    public static var listing: [String] {
        Fault.allCases.map { "\($0.rawValue)  \($0.summary)" }
    }
}
