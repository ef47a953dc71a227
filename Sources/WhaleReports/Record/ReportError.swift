/// Why a run directory could not be rendered; the message names the file and what is wrong.
public enum ReportError: Error, Equatable, CustomStringConvertible {
    /// The directory or a required file is not there.
    case missing(String)
    /// A file is there but cannot be read as what it should be.
    case corrupt(String)

    public var description: String {
        switch self {
        case .missing(let m), .corrupt(let m): m
        }
    }
}
