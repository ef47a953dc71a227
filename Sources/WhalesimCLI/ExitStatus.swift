import ArgumentParser

/// The exit codes every `whalesim` command uses, so CI jobs can act on them.
enum ExitStatus {
    /// Everything checked passed.
    static let pass = ExitCode(0)
    /// A performance threshold was breached (e.g. `op_ack p99 < 50ms`).
    static let thresholdBreached = ExitCode(1)
    /// A correctness checker said `invalid`.
    static let correctnessViolated = ExitCode(2)
    /// A checker could not decide (`unknown`).
    static let inconclusive = ExitCode(3)
    /// Bad usage or a bad input file (sysexits' EX_USAGE, also ArgumentParser's).
    static let badInput = ExitCode(64)
    /// The checks passed but the run's record could not be written (a full disk): sysexits'
    /// EX_IOERR, so a CI job never takes a run with no report for a pass.
    static let recordNotWritten = ExitCode(74)

    /// The verdict an exit code stands for, in the live view's words (`pass`, `fail`, `unknown`).
    static func word(_ code: Int32) -> String {
        switch code {
        case 0: "pass"
        case 1, 2: "fail"
        default: "unknown"
        }
    }
}

/// An error that ends the command with a clear message on stderr and exit code 64.
struct BadInput: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

extension BadInput {
    /// Prints the message to stderr and returns the exit code to throw.
    func exit() -> ExitCode {
        printError("whalesim: \(message)")
        return ExitStatus.badInput
    }
}
