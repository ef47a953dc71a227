/// Why an operation, a codec input or a cursor was rejected. Every case names what was wrong.
public enum OTError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The operation's base length is not the document's length.
    case lengthMismatch(operationBase: Int, document: Int)
    /// Two operations that must share a base (transform) or chain (compose) do not.
    case incompatible(String)
    /// A component is zero, empty or otherwise malformed.
    case malformedComponent(index: Int, reason: String)
    /// The wire form's `n` and `s` arrays differ in length.
    case arrayLengthMismatch(n: Int, s: Int)
    /// Text is not well-formed Unicode.
    case illFormedUnicode(String)
    /// A cursor or offset lies outside the document.
    case outOfBounds(offset: Int, length: Int)

    public var description: String {
        switch self {
        case .lengthMismatch(let base, let document):
            "operation does not span the document: it covers \(base) scalars, the document has \(document)"
        case .incompatible(let why):
            why
        case .malformedComponent(let index, let reason):
            "component \(index) is malformed: \(reason)"
        case .arrayLengthMismatch(let n, let s):
            "mismatched array lengths: n has \(n) entries, s has \(s)"
        case .illFormedUnicode(let why):
            "ill-formed Unicode: \(why)"
        case .outOfBounds(let offset, let length):
            "offset \(offset) is outside the document (0...\(length))"
        }
    }
}
