/// A command written to the control file (`/.lazyfs-control`): one per line.
///
/// ```
/// echo drop > MOUNT/.lazyfs-control         # forget every unsynced write and namespace change
/// echo "drop torn" > MOUNT/.lazyfs-control  # the same, the newest write torn at a page boundary
/// echo writeback > MOUNT/.lazyfs-control    # the OS writes everything back: nothing unsynced is left
/// cat MOUNT/.lazyfs-control                 # unsynced-files N / unsynced-bytes N / ...
/// ```
public enum LazyCommand: Equatable, Sendable {
    case drop(torn: Bool)
    /// What the kernel's writeback does with old dirty pages, at once for everything: every
    /// unsynced write and namespace change becomes durable (as if every file and directory were
    /// fsynced). A harness uses it to start from a durable state.
    case writeback

    /// The commands in `text` (blank lines skipped), or what is wrong with it.
    public static func parse(_ text: String) -> Result<[LazyCommand], LazyCommandError> {
        var out: [LazyCommand] = []
        for raw in text.split(whereSeparator: \.isNewline) {
            let words = raw.split(separator: " ", omittingEmptySubsequences: true)
            switch words.map(String.init) {
            case []: continue
            case ["drop"]: out.append(.drop(torn: false))
            case ["drop", "torn"]: out.append(.drop(torn: true))
            case ["writeback"]: out.append(.writeback)
            default: return .failure(LazyCommandError(line: String(raw)))
            }
        }
        return .success(out)
    }
}

/// A control-file line that is not a command.
public struct LazyCommandError: Error, Equatable, CustomStringConvertible {
    public var line: String
    public var description: String {
        "unknown lazyfs command \"\(line)\" (expected \"drop\", \"drop torn\" or \"writeback\")"
    }
}
