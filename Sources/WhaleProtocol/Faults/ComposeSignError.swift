import WhaleOT

/// The compose of the fault `compose-sign-error`: like ``Operation/compose(_:_:)`` except on the
/// branch where an insert meets a longer delete, where the rest of the delete is computed with
/// the wrong sign (`n + m` instead of `n - m`), as in the original client. The result deletes
/// too much, or does not span the document.
func composeWithSignError(_ a: Operation, _ b: Operation) throws(OTError) -> Operation {
    var result = Operation()
    var ac = a.components[...], bc = b.components[...]
    var x = ac.popFirst(), y = bc.popFirst()
    while x != nil || y != nil {
        if case .delete(let n)? = x { result.delete(n); x = ac.popFirst(); continue }
        if case .insert(let s, let c)? = y { result.insert(s, count: c); y = bc.popFirst(); continue }
        guard let p = x, let q = y else { throw .incompatible("compose: operations do not chain") }
        switch (p, q) {
        case (.retain(let m), .retain(let n)):
            let k = min(m, n); result.retain(k)
            x = m > k ? .retain(m - k) : ac.popFirst()
            y = n > k ? .retain(n - k) : bc.popFirst()
        case (.insert(let s, let m), .delete(let n)):
            if m > n {
                let tail = String(s.unicodeScalars.dropFirst(n))
                x = .insert(tail, count: m - n); y = bc.popFirst()
            } else if m == n {
                x = ac.popFirst(); y = bc.popFirst()
            } else {
                x = ac.popFirst(); y = .delete(n + m)  // the sign error
            }
        case (.insert(let s, let m), .retain(let n)):
            if m <= n {
                result.insert(s, count: m); x = ac.popFirst()
                y = n > m ? .retain(n - m) : bc.popFirst()
            } else {
                let head = String(s.unicodeScalars.prefix(n))
                result.insert(head, count: n)
                x = .insert(String(s.unicodeScalars.dropFirst(n)), count: m - n); y = bc.popFirst()
            }
        case (.retain(let m), .delete(let n)):
            let k = min(m, n); result.delete(k)
            x = m > k ? .retain(m - k) : ac.popFirst()
            y = n > k ? .delete(n - k) : bc.popFirst()
        default:
            throw .incompatible("compose: operations do not chain")
        }
    }
    return result
}
