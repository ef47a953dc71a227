import Foundation

/// Why a benchmark could not measure (a server that did not answer, a sign-in refused): the
/// command prints it and ends, as a bad input would.
package struct BenchError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }

    /// One line on standard error, for what the benchmark notes and carries on past.
    package static func report(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
