import Foundation
import WhaleCore

/// Text for HTML text and attribute values (the one escaper, WhaleCore's `MarkupEscaping`).
func html(_ s: String) -> String { MarkupEscaping.html(s) }

/// Text for XML 1.0 text and attributes; characters XML forbids become U+FFFD.
func xml(_ s: String) -> String { MarkupEscaping.xml(s) }

/// A number for display: integers without a fraction, others with one decimal.
func figure(_ v: Double?) -> String {
    guard let v else { return "–" }
    if v == v.rounded(), abs(v) < 1e15 { return String(Int(v)) }
    return String(format: "%.1f", v)
}
