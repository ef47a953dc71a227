import WhaleOT

/// The transform of the fault `utf8-length-transform`, the original backend's server-side
/// defect: its transform (and compose) count an insert's length in UTF-8 bytes (Go's `len` of a
/// string) while its document counts code points. Like ``Operation/transform(_:_:)`` for the
/// incoming op `a` (which has tie priority), except that where `b` inserts, `a′` retains the
/// insert's UTF-8 byte count instead of its scalar count. For ASCII the two agree; over a
/// concurrent non-ASCII insert `a′` spans more than the document (its edits after the insert
/// sit too far right), so the whole-document check of apply, or the next transform's
/// base-length check, refuses it: protocol 2 answers `badOperation`, the original says nothing
/// and its client waits for an ack forever.
func transformCountingUTF8(_ a: Operation, _ b: Operation) throws(OTError) -> Operation {
    guard a.baseLength == b.baseLength else {
        throw .incompatible(
            "cannot transform operations on different documents: base lengths \(a.baseLength) and \(b.baseLength)")
    }
    var aPrime = Operation(capacity: a.components.count + 2)
    var ac = a.components[...], bc = b.components[...]
    var x = ac.popFirst(), y = bc.popFirst()
    while x != nil || y != nil {
        if case .insert(let text, let count)? = x { aPrime.insert(text, count: count); x = ac.popFirst(); continue }
        if case .insert(let text, _)? = y { aPrime.retain(text.utf8.count); y = bc.popFirst(); continue }  // the defect
        guard let p = x, let q = y else { throw .incompatible("operations do not span the same document") }
        let k = min(p.baseLength, q.baseLength)
        switch (p, q) {
        case (.retain, .retain): aPrime.retain(k)
        case (.delete, .retain): aPrime.delete(k)
        default: break  // b deleted these scalars: a's retain or delete of them vanishes
        }
        x = p.baseLength > k ? p.shortened(by: k) : ac.popFirst()
        y = q.baseLength > k ? q.shortened(by: k) : bc.popFirst()
    }
    return aPrime
}

extension Component {
    /// A retain or delete with `k` fewer scalars.
    fileprivate func shortened(by k: Int) -> Component {
        switch self {
        case .retain(let n): .retain(n - k)
        case .delete(let n): .delete(n - k)
        case .insert: self
        }
    }
}
