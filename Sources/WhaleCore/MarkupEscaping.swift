/// The one escaper for text placed in HTML or XML: reports, `junit.xml`, the conformance report
/// and the fake Salesforce's SOAP replies all go through it, so an evidence line with `<`, `&` or a
/// control character reads the same (and stays well-formed) wherever it lands.
///
/// It walks Unicode scalars, not `Character`s: a grapheme such as `&` followed by a combining mark
/// is one `Character` that compares unequal to `"&"`, and a per-`Character` escaper let it through raw.
public enum MarkupEscaping {
    /// What becomes of a character XML 1.0 forbids (C0 controls other than tab, newline and
    /// carriage return; U+FFFE and U+FFFF).
    public enum Forbidden: Sendable {
        /// U+FFFD, as a reader would see any undecodable byte (reports and `junit.xml`).
        case replacementCharacter
        /// A visible `\u{1B}`, so evidence still says which character the server sent (conform).
        case visibleEscape
    }

    /// Text for HTML text and attribute values: `&`, `<`, `>`, `"` and `'` (as `&#39;`, which
    /// every HTML version reads).
    public static func html(_ text: String) -> String {
        escape(text, apostrophe: "&#39;", forbidden: nil)
    }

    /// Text for XML 1.0 text and attribute values: the five predefined entities, and the
    /// characters XML forbids replaced as `forbidden` says, so the document always parses.
    public static func xml(_ text: String, forbidden: Forbidden = .replacementCharacter) -> String {
        escape(text, apostrophe: "&apos;", forbidden: forbidden)
    }

    private static func escape(_ text: String, apostrophe: String, forbidden: Forbidden?) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += apostrophe
            case "\t", "\n", "\r": out.unicodeScalars.append(c)
            default:
                guard let forbidden, c.value < 0x20 || c.value == 0xFFFE || c.value == 0xFFFF else {
                    out.unicodeScalars.append(c)
                    continue
                }
                switch forbidden {
                case .replacementCharacter: out += "\u{FFFD}"
                case .visibleEscape: out += "\\u{" + String(c.value, radix: 16, uppercase: true) + "}"
                }
            }
        }
        return out
    }
}
