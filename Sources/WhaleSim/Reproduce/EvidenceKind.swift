/// The kind of an evidence line, comparable between a live run and its simulated reproducer:
/// the line with every token that holds a digit (times, revisions, op ids, client and note
/// names) replaced by `#` and every quoted text by `"…"`. Two lines of one kind say the same
/// thing about (possibly) different ops, clients and texts.
///
/// ```swift
/// EvidenceKind.of("c001.mk3x:4 applied twice on note-1 (revisions 3 and 5): its text \"ab\" is doubled")
/// // "# applied twice on # (revisions # and #): its text \"…\" is doubled"
/// ```
public enum EvidenceKind {
    public static func of(_ line: String) -> String {
        var out = ""
        var token = ""
        var inQuote = false
        var escaped = false
        func flush() {
            if token.contains(where: \.isNumber) {
                // Keep the punctuation around a name: `(c00,` → `(#,`.
                let lead = token.prefix { "([{".contains($0) }
                let trail = token.reversed().prefix { ",.;:)]}".contains($0) }
                out += lead + "#" + String(trail.reversed())
            } else {
                out += token
            }
            token = ""
        }
        for ch in line {
            if inQuote {
                if escaped {
                    escaped = false
                } else if ch == "\\" {
                    escaped = true
                } else if ch == "\"" {
                    inQuote = false; out += "…\""
                }
                continue
            }
            if ch == "\"" { flush(); inQuote = true; out += "\""; continue }
            if ch == " " { flush(); out.append(ch); continue }
            token.append(ch)
        }
        flush()
        return out
    }

    /// The claim of a kind (``of(_:)``): the part before its first `": "`, which says what went
    /// wrong with what (`# diverged from the server on # during the run`), without the detail of
    /// how it showed (`operation does not span the document` or `cannot transform operations on
    /// different documents` are the same divergence). A reproducer matches live evidence by it,
    /// and its shrinker keeps a candidate by it: a detail that flips as edits go would otherwise
    /// strand the shrinker in a local minimum of dozens of edits.
    /// When it was seen is not part of the claim either: a leading time (`t=3333`, a `#` before the
    /// subject's `#`) and a trailing ` during the run` go, so a copy that diverged while the run went on
    /// and one found diverged at the end make the same claim.
    /// Nor is the cause in a closing parenthesis, which says how whalesim saw it: a live run sees an
    /// acknowledged edit go when the server answers a resync with older state (`(the server answered
    /// the recorder's resync …)`), the simulator when its server restarts (`(restart from persisted
    /// state)`); the claim of both is `# was acknowledged at # but dropped from # at #`.
    public static func claim(_ kind: String) -> String {
        var claim = kind.range(of: ": ").map { String(kind[..<$0.lowerBound]) } ?? kind
        if claim.hasPrefix("# #") { claim.removeFirst(2) }
        if claim.hasSuffix(" during the run") { claim.removeLast(" during the run".count) }
        if let open = trailingParenthesis(claim) { claim = String(claim[..<open]) }
        return claim
    }

    /// Where the ` (` of a balanced parenthesis that closes `text` starts, or nil.
    static func trailingParenthesis(_ text: String) -> String.Index? {
        guard text.hasSuffix(")") else { return nil }
        var depth = 0
        var i = text.endIndex
        while i > text.startIndex {
            i = text.index(before: i)
            if text[i] == ")" { depth += 1 }
            if text[i] == "(" {
                depth -= 1
                if depth == 0 {
                    guard i > text.startIndex, text[text.index(before: i)] == " " else { return nil }
                    return text.index(before: i)
                }
            }
        }
        return nil
    }
}
