import WhaleOT

/// The intention checker's shadow document: per scalar, who inserted it. An inserted scalar's
/// identity is the place of its op in the note's log and the op's author, `(ordinal << 32) | client`
/// (what the delete check asks of it); the initial text's are negative. It holds no more than the
/// text, whatever the length of the log.
struct ShadowText {
    private(set) var ids: [Int64]
    private(set) var scalars: [Unicode.Scalar]

    init(initial: String) {
        scalars = Array(initial.unicodeScalars)
        ids = (0..<scalars.count).map { -Int64($0) - 1 }
    }

    var count: Int { ids.count }

    /// The identity of the scalars inserted by op number `ordinal` (0-based) of the log, by `client`.
    static func identity(ordinal: Int, client: Int) -> Int64 {
        Int64(ordinal) << 32 | Int64(UInt32(truncatingIfNeeded: client))
    }

    /// The op's place in the log and its author, from an inserted scalar's identity.
    static func origin(_ identity: Int64) -> (ordinal: Int, client: Int) {
        (Int(identity >> 32), Int(identity & 0xFFFF_FFFF))
    }

    /// Applies `operation`, its inserted scalars taking `identity`; false if it does not span the text.
    mutating func apply(_ operation: Operation, identity: Int64) -> Bool {
        var deleted: [(id: Int64, scalar: Unicode.Scalar)] = []
        return apply(operation, identity: identity, deleted: &deleted)
    }

    /// Applies `operation` and lists the identities and scalars it deleted.
    mutating func apply(_ operation: Operation, identity: Int64, deleted: inout [(id: Int64, scalar: Unicode.Scalar)])
        -> Bool
    {
        guard operation.baseLength == ids.count else { return false }
        var newIds: [Int64] = []
        var newScalars: [Unicode.Scalar] = []
        newIds.reserveCapacity(operation.targetLength)
        newScalars.reserveCapacity(operation.targetLength)
        var position = 0
        for component in operation.components {
            switch component {
            case .retain(let n):
                newIds.append(contentsOf: ids[position..<position + n])
                newScalars.append(contentsOf: scalars[position..<position + n])
                position += n
            case .insert(let text, _):
                for scalar in text.unicodeScalars {
                    newIds.append(identity)
                    newScalars.append(scalar)
                }
            case .delete(let n):
                for p in position..<position + n { deleted.append((ids[p], scalars[p])) }
                position += n
            }
        }
        ids = newIds
        scalars = newScalars
        return true
    }

    var text: String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }
}

func scalarsText(_ scalars: [Unicode.Scalar]) -> String {
    var view = String.UnicodeScalarView()
    view.append(contentsOf: scalars.prefix(40))
    return String(view) + (scalars.count > 40 ? "…" : "")
}

extension Operation {
    /// Scalars the operation deletes.
    var deletedCount: Int {
        var n = 0
        for case .delete(let k) in components { n += k }
        return n
    }
}
