/// One step of an ``Operation``, counted in Unicode scalars.
///
/// - `retain(n)`: keep the next `n` scalars of the base document.
/// - `insert(text, count)`: insert `text`, whose length is `count` Unicode scalars
///   (cached because transform and compose need it on every step).
/// - `delete(n)`: remove the next `n` scalars of the base document.
public enum Component: Hashable, Sendable {
    case retain(Int)
    case insert(String, count: Int)
    case delete(Int)

    /// An insert component for `text`, its scalar count computed once here.
    public static func inserting(_ text: String) -> Component {
        .insert(text, count: text.unicodeScalars.count)
    }

    /// Scalars of the base document this component consumes (retain and delete).
    @inlinable public var baseLength: Int {
        switch self {
        case .retain(let n), .delete(let n): n
        case .insert: 0
        }
    }

    /// Scalars this component leaves in the target document (retain and insert).
    @inlinable public var targetLength: Int {
        switch self {
        case .retain(let n): n
        case .insert(_, let count): count
        case .delete: 0
        }
    }
}
