import Foundation

/// Escapes text from a record for HTML text and attribute values (`&`, `<`, `>`, `"`, `'`).
func html(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for c in s.unicodeScalars {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        default: out.unicodeScalars.append(c)
        }
    }
    return out
}

/// Escapes text for XML 1.0 text and attributes: the five entities, and characters XML 1.0
/// forbids (controls other than tab, newline, carriage return) replaced by U+FFFD.
func xml(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for c in s.unicodeScalars {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        case "\t", "\n", "\r": out.unicodeScalars.append(c)
        default:
            if c.value < 0x20 || c.value == 0xFFFE || c.value == 0xFFFF { out += "\u{FFFD}" } else { out.unicodeScalars.append(c) }
        }
    }
    return out
}

/// A number for display: integers without a fraction, others with one decimal.
func figure(_ v: Double?) -> String {
    guard let v else { return "–" }
    if v == v.rounded(), abs(v) < 1e15 { return String(Int(v)) }
    return String(format: "%.1f", v)
}
