/// A command line as a person pastes it into a POSIX shell: each word that holds anything but
/// letters, digits and `_@%+=:,./-` is single-quoted (a `'` inside becomes `'\''`), so a replay
/// command naming `my scenario.yml` or a run directory under `it's/` runs as printed.
public enum ShellCommand {
    /// The words joined with spaces, each quoted where the shell would otherwise split or read it.
    public static func line(_ words: [String]) -> String {
        words.map(word).joined(separator: " ")
    }

    /// One word, quoted only when it needs to be (an empty word is `''`).
    public static func word(_ word: String) -> String {
        if !word.isEmpty, word.utf8.allSatisfy(isPlain) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "_@%+=:,./-".utf8.contains(byte)
        }
    }
}
