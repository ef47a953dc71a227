#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation

/// Writes one line to standard error (diagnostics never go to stdout, which carries JSON).
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Reads all of standard input as UTF-8.
func readStandardInput() throws -> String {
    let data = FileHandle.standardInput.readDataToEndOfFile()
    guard let text = String(data: data, encoding: .utf8) else {
        throw BadInput("standard input is not valid UTF-8")
    }
    return text
}

/// Writes one line to standard output at once (unbuffered), so a long run's progress reaches
/// a CI log or a parent process as it happens.
func printLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// The process's standard streams.
enum StandardStreams {
    /// Makes C's `stdout` (behind Swift's `print`) flush at every newline. A pipe or a file is
    /// otherwise block-buffered, and a CI job showed ten minutes of silence and then every line.
    static func lineBufferStandardOutput() {
        setvbuf(stdout, nil, _IOLBF, 0)
    }
}
