/// Splits `text` after its first `count` Unicode scalars. Compose and transform use it when
/// an insert is partly consumed; positions are scalars, never `Character`s.
@usableFromInline
func splitScalars(_ text: String, at count: Int) -> (head: String, tail: String) {
    let scalars = text.unicodeScalars
    let cut = scalars.index(scalars.startIndex, offsetBy: count)
    return (String(scalars[..<cut]), String(scalars[cut...]))
}
