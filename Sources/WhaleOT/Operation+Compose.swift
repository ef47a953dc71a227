extension Operation {
    /// Composes `a` then `b` into one operation with the same effect:
    /// `apply(doc, compose(a, b)) == apply(apply(doc, a), b)`.
    public static func compose(_ a: Operation, _ b: Operation) throws(OTError) -> Operation {
        guard a.targetLength == b.baseLength else {
            throw .incompatible(
                "cannot compose: the first operation produces \(a.targetLength) scalars, the second expects \(b.baseLength)"
            )
        }
        var result = Operation(capacity: a.components.count + b.components.count)
        let ac = a.components, bc = b.components
        var i = 0, j = 0
        var aCur: Component? = ac.first
        var bCur: Component? = bc.first
        if aCur != nil { i = 1 }
        if bCur != nil { j = 1 }
        @inline(__always) func nextA() -> Component? { defer { i += 1 }; return i < ac.count ? ac[i] : nil }
        @inline(__always) func nextB() -> Component? { defer { j += 1 }; return j < bc.count ? bc[j] : nil }
        while aCur != nil || bCur != nil {
            if case .delete(let n)? = aCur {
                result.delete(n)
                aCur = nextA()
                continue
            }
            if case .insert(let text, let count)? = bCur {
                result.insert(text, count: count)
                bCur = nextB()
                continue
            }
            guard let x = aCur, let y = bCur else {
                throw .incompatible("cannot compose: operations do not chain")
            }
            switch (x, y) {
            case (.retain(let m), .retain(let n)):
                let k = min(m, n)
                result.retain(k)
                aCur = m > k ? .retain(m - k) : nextA()
                bCur = n > k ? .retain(n - k) : nextB()
            case (.insert(let text, let m), .delete(let n)):
                let k = min(m, n)
                aCur = m > k ? .insert(splitScalars(text, at: k).tail, count: m - k) : nextA()
                bCur = n > k ? .delete(n - k) : nextB()
            case (.insert(let text, let m), .retain(let n)):
                if m <= n {
                    result.insert(text, count: m)
                    aCur = nextA()
                    bCur = n > m ? .retain(n - m) : nextB()
                } else {
                    let (head, tail) = splitScalars(text, at: n)
                    result.insert(head, count: n)
                    aCur = .insert(tail, count: m - n)
                    bCur = nextB()
                }
            case (.retain(let m), .delete(let n)):
                let k = min(m, n)
                result.delete(k)
                aCur = m > k ? .retain(m - k) : nextA()
                bCur = n > k ? .delete(n - k) : nextB()
            default:
                throw .incompatible("cannot compose: operations do not chain")
            }
        }
        return result
    }
}
