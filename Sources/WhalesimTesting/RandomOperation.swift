import WhaleOT

/// Random documents and random canonical operations over them, for property tests and the
/// simulator's typing workloads. Every draw takes the caller's seeded generator (`using:`),
/// so a printed seed replays the same case.
///
/// The alphabet mixes ASCII with scalars that break code counting in other units: a two-byte
/// Latin letter, a combining mark, CJK, astral emoji (surrogate pairs in UTF-16), a ZWJ and a
/// newline, so a bug that counts UTF-8, UTF-16 or graphemes instead of scalars shows up.
///
/// ```swift
/// var rng = SplitMix64(seed: 42)
/// let doc = RandomOperation.document(maxScalars: 30, using: &rng)
/// let op = RandomOperation.operation(baseLength: doc.unicodeScalars.count, using: &rng)
/// ```
public enum RandomOperation {
    /// The scalars random text is drawn from.
    public static let alphabet: [Unicode.Scalar] = [
        "a", "b", "c", "x", " ", "\n", "é", "\u{301}", "中", "文", "👍", "👩", "\u{200D}", "💻",
    ]

    /// `count` random scalars from ``alphabet``.
    public static func text(scalars count: Int, using rng: inout some RandomNumberGenerator) -> String {
        var view = String.UnicodeScalarView()
        for _ in 0..<max(count, 0) { view.append(alphabet.randomElement(using: &rng)!) }
        return String(view)
    }

    /// A random document of 0...`maxScalars` scalars.
    public static func document(maxScalars: Int = 40, using rng: inout some RandomNumberGenerator) -> String {
        text(scalars: Int.random(in: 0...maxScalars, using: &rng), using: &rng)
    }

    /// A random canonical operation spanning a document of `baseLength` scalars: a walk of
    /// retains, inserts (1...`maxInsert` scalars) and deletes, built through the canonical builders.
    public static func operation(
        baseLength: Int, maxInsert: Int = 4, using rng: inout some RandomNumberGenerator
    ) -> Operation {
        var op = Operation()
        var remaining = baseLength
        while remaining > 0 {
            let step = Int.random(in: 1...min(remaining, 5), using: &rng)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0, 1:
                op.retain(step)
                remaining -= step
            case 2:
                op.delete(step)
                remaining -= step
            default:
                op.insert(text(scalars: Int.random(in: 1...maxInsert, using: &rng), using: &rng))
            }
        }
        if Bool.random(using: &rng) {
            op.insert(text(scalars: Int.random(in: 1...maxInsert, using: &rng), using: &rng))
        }
        return op
    }

    /// A small edit as a user makes one: at one random position, delete up to `maxDelete`
    /// scalars and/or insert up to `maxInsert` (never a no-op unless the document is empty
    /// and the draw inserts nothing).
    public static func edit(
        baseLength: Int, maxDelete: Int = 3, maxInsert: Int = 3, using rng: inout some RandomNumberGenerator
    ) -> Operation {
        let position = Int.random(in: 0...baseLength, using: &rng)
        let deleting = Int.random(in: 0...min(maxDelete, baseLength - position), using: &rng)
        let minInsert = deleting == 0 ? 1 : 0
        let inserting = text(scalars: Int.random(in: minInsert...max(maxInsert, minInsert), using: &rng), using: &rng)
        return Operation.replace(in: baseLength, at: position, deleting: deleting, inserting: inserting)
    }
}
