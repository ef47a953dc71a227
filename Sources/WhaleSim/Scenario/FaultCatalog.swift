import WhaleProtocol

/// The switchable code faults (``WhaleProtocol/Fault``) by name, for validating scenario files
/// and `--fault` options.
public enum FaultCatalog {
    public static var names: [String] { Fault.allCases.map(\.rawValue) }

    /// `name  summary` lines, names first, for `whalesim simulate --list-faults`.
    public static var listing: [String] {
        let width = Fault.allCases.map(\.rawValue.count).max() ?? 0
        return Fault.allCases.map { $0.rawValue.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.summary }
    }
}

import Foundation
