/// Why a record file could not be read or written. The message names the file once a reader
/// has added it (``prefixed(_:)``); `whalesim history` and the reports print it as is.
public enum RecordFileError: Error, CustomStringConvertible, Sendable, Equatable {
    /// No such file (or no history in the run directory).
    case missing(String)
    /// The file does not start with the history format's magic bytes.
    case notARecord(String)
    /// The magic is right but the format version is one this build does not know.
    case unsupportedVersion(String)
    /// The file ends before its end marker (a run that was killed while writing, a partial copy).
    case truncated(String)
    /// The bytes are damaged: a bad checksum, an impossible value.
    case corrupt(String)
    /// Reading or writing failed.
    case io(String)

    public var message: String {
        switch self {
        case .missing(let m), .notARecord(let m), .unsupportedVersion(let m), .truncated(let m), .corrupt(let m),
            .io(let m):
            m
        }
    }

    public var description: String { message }

    /// The same error with `prefix: ` before its message (the file's path).
    public func prefixed(_ prefix: String) -> RecordFileError {
        let m = "\(prefix): \(message)"
        switch self {
        case .missing: return .missing(m)
        case .notARecord: return .notARecord(m)
        case .unsupportedVersion: return .unsupportedVersion(m)
        case .truncated: return .truncated(m)
        case .corrupt: return .corrupt(m)
        case .io: return .io(m)
        }
    }
}
