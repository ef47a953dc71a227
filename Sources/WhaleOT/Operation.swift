/// A text operation over a whole document: a sequence of retain / insert / delete
/// components whose retains and deletes add up to the base document's length in
/// Unicode scalars.
///
/// The builder methods keep the operation canonical: no empty components, adjacent
/// components of one kind merged, and an insert next to a delete placed before it.
///
/// ```swift
/// var op = Operation()
/// op.retain(6); op.insert("w"); op.retain(4)   // "hello world" → "hello wworld"
/// let text = try op.apply(to: "hello world")
/// ```
public struct Operation: Hashable, Sendable {
    /// The canonical components, in document order.
    public private(set) var components: [Component]
    /// Length in scalars of the document this operation applies to.
    public private(set) var baseLength: Int
    /// Length in scalars of the document it produces.
    public private(set) var targetLength: Int

    /// The empty operation on the empty document.
    public init() {
        components = []
        baseLength = 0
        targetLength = 0
    }

    /// An empty operation with room for `capacity` components.
    public init(capacity: Int) {
        self.init()
        components.reserveCapacity(capacity)
    }

    /// Builds a canonical operation from components in any (valid) form.
    /// Zero-length components are rejected: they mean a malformed input.
    public init(_ components: some Sequence<Component>) throws(OTError) {
        self.init()
        var budget = LengthBudget()
        for (index, component) in components.enumerated() {
            switch component {
            case .retain(let n):
                guard n > 0 else { throw .malformedComponent(index: index, reason: "retain of \(n)") }
                try budget.add(n, index: index)
                retain(n)
            case .delete(let n):
                guard n > 0 else { throw .malformedComponent(index: index, reason: "delete of \(n)") }
                try budget.add(n, index: index)
                delete(n)
            case .insert(let text, let count):
                guard count > 0, !text.isEmpty else { throw .malformedComponent(index: index, reason: "empty insert") }
                guard text.unicodeScalars.count == count else {
                    throw .malformedComponent(
                        index: index,
                        reason: "insert count \(count) is not the text's \(text.unicodeScalars.count) scalars")
                }
                try budget.add(count, index: index)
                insert(text, count: count)
            }
        }
    }

    /// True when applying it changes nothing (only retains).
    public var isNoop: Bool {
        components.isEmpty
            || (components.count == 1
                && {
                    if case .retain = components[0] { return true }; return false
                }())
    }

    // MARK: Builders

    /// Keeps the next `n` scalars. `n <= 0` does nothing.
    public mutating func retain(_ n: Int) {
        guard n > 0 else { return }
        baseLength += n
        targetLength += n
        if case .retain(let last)? = components.last {
            components[components.count - 1] = .retain(last + n)
        } else {
            components.append(.retain(n))
        }
    }

    /// Inserts `text` (counted in Unicode scalars). An empty string does nothing.
    public mutating func insert(_ text: String) {
        insert(text, count: text.unicodeScalars.count)
    }

    /// Inserts `text` whose scalar count the caller already knows.
    public mutating func insert(_ text: String, count: Int) {
        guard count > 0 else { return }
        targetLength += count
        let n = components.count
        switch components.last {
        case .insert(let last, let lastCount)?:
            components[n - 1] = .insert(last + text, count: lastCount + count)
        case .delete?:
            // Canonical form: insert before delete. Merge into an insert that precedes the delete.
            if n >= 2, case .insert(let prev, let prevCount) = components[n - 2] {
                components[n - 2] = .insert(prev + text, count: prevCount + count)
            } else {
                components.insert(.insert(text, count: count), at: n - 1)
            }
        default:
            components.append(.insert(text, count: count))
        }
    }

    /// Deletes the next `n` scalars. `n <= 0` does nothing.
    public mutating func delete(_ n: Int) {
        guard n > 0 else { return }
        baseLength += n
        if case .delete(let last)? = components.last {
            components[components.count - 1] = .delete(last + n)
        } else {
            components.append(.delete(n))
        }
    }

    /// Appends one component through the builders (keeps canonical form).
    public mutating func append(_ component: Component) {
        switch component {
        case .retain(let n): retain(n)
        case .insert(let text, let count): insert(text, count: count)
        case .delete(let n): delete(n)
        }
    }
}

extension Operation {
    /// A convenience for tests and tools: `Operation.replace(in: 10, at: 3, deleting: 2, inserting: "xy")`.
    public static func replace(in documentLength: Int, at position: Int, deleting: Int = 0, inserting text: String = "")
        -> Operation
    {
        var op = Operation(capacity: 4)
        op.retain(position)
        op.insert(text)
        op.delete(deleting)
        op.retain(documentLength - position - deleting)
        return op
    }
}
