extension Operation {
    /// Applies the operation to `text`, whose length in Unicode scalars must equal ``baseLength``.
    public func apply(to text: String) throws(OTError) -> String {
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        var result = String.UnicodeScalarView()
        var consumed = 0
        for component in components {
            switch component {
            case .retain(let n):
                guard let end = scalars.index(index, offsetBy: n, limitedBy: scalars.endIndex) else {
                    throw .lengthMismatch(operationBase: baseLength, document: scalars.count)
                }
                result.append(contentsOf: scalars[index..<end])
                index = end
                consumed += n
            case .insert(let inserted, _):
                result.append(contentsOf: inserted.unicodeScalars)
            case .delete(let n):
                guard let end = scalars.index(index, offsetBy: n, limitedBy: scalars.endIndex) else {
                    throw .lengthMismatch(operationBase: baseLength, document: scalars.count)
                }
                index = end
                consumed += n
            }
        }
        guard index == scalars.endIndex else {
            throw .lengthMismatch(operationBase: baseLength, document: consumed + scalars[index...].count)
        }
        return String(result)
    }

    /// The operation that undoes this one when applied to its result. `text` is the base document.
    public func invert(base text: String) throws(OTError) -> Operation {
        let scalars = text.unicodeScalars
        guard scalars.count == baseLength else {
            throw .lengthMismatch(operationBase: baseLength, document: scalars.count)
        }
        var inverse = Operation(capacity: components.count)
        var index = scalars.startIndex
        for component in components {
            switch component {
            case .retain(let n):
                inverse.retain(n)
                index = scalars.index(index, offsetBy: n)
            case .insert(_, let count):
                inverse.delete(count)
            case .delete(let n):
                let end = scalars.index(index, offsetBy: n)
                inverse.insert(String(String.UnicodeScalarView(scalars[index..<end])), count: n)
                index = end
            }
        }
        return inverse
    }
}
