extension Operation {
    /// Transforms two concurrent operations on the same document: returns `(a′, b′)` such that
    /// `apply(apply(doc, a), b′) == apply(apply(doc, b), a′)`.
    ///
    /// `a` has tie priority: when both insert at one position, `a`'s text ends up on the left.
    /// An insert inside or at the edge of a range the other side deletes survives at the deletion
    /// point; overlapping deletes happen once.
    public static func transform(_ a: Operation, _ b: Operation) throws(OTError) -> (
        aPrime: Operation, bPrime: Operation
    ) {
        guard a.baseLength == b.baseLength else {
            throw .incompatible(
                "cannot transform operations on different documents: base lengths \(a.baseLength) and \(b.baseLength)")
        }
        var aPrime = Operation(capacity: a.components.count + 2)
        var bPrime = Operation(capacity: b.components.count + 2)
        let ac = a.components, bc = b.components
        var i = 0, j = 0
        // The unconsumed part of the current retain/delete component on each side.
        var aRest = 0, bRest = 0
        var aIsDelete = false, bIsDelete = false
        while true {
            // Inserts go first; a's before b's (tie priority).
            if aRest == 0, i < ac.count {
                switch ac[i] {
                case .insert(let text, let count):
                    aPrime.insert(text, count: count)
                    bPrime.retain(count)
                    i += 1
                    continue
                case .retain(let n): aRest = n; aIsDelete = false; i += 1
                case .delete(let n): aRest = n; aIsDelete = true; i += 1
                }
            }
            if bRest == 0, j < bc.count {
                switch bc[j] {
                case .insert(let text, let count):
                    aPrime.retain(count)
                    bPrime.insert(text, count: count)
                    j += 1
                    continue
                case .retain(let n): bRest = n; bIsDelete = false; j += 1
                case .delete(let n): bRest = n; bIsDelete = true; j += 1
                }
            }
            // A side with nothing loaded here has run out of components.
            if aRest == 0 || bRest == 0 {
                if aRest == 0, bRest == 0 { break }
                throw .incompatible("operations do not span the same document")
            }
            let k = min(aRest, bRest)
            switch (aIsDelete, bIsDelete) {
            case (false, false):
                aPrime.retain(k)
                bPrime.retain(k)
            case (true, false):
                aPrime.delete(k)
            case (false, true):
                bPrime.delete(k)
            case (true, true):
                break  // both deleted the same scalars: it happens once
            }
            aRest -= k
            bRest -= k
        }
        return (aPrime, bPrime)
    }
}
