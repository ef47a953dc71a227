import Foundation

extension Org {
    /// Loads `org.json`, `schema/<Object>.json`, `records/<Object>.jsonl` and `credentials.json`
    /// from a fixture directory such as `Fixtures/salesforce/small`.
    public static func load(directory: URL) throws -> Org {
        throw FixtureError(file: directory.path, line: nil, message: "fixture loading not yet implemented")
    }
}

/// A bad fixture file: which file, which line (JSON Lines) and what is wrong.
public struct FixtureError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String

    public init(file: String, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)" }
}
