/// What virtual users type: ASCII words, or with the `unicode` alphabet, a mix that stresses
/// units: precomposed and combining accents, astral emoji, skin tones, ZWJ sequences, flags,
/// CJK and Hangul. Every piece is one user-perceived character (one keystroke), 1 to 4 scalars.
public struct TextGenerator: Sendable {
    public let alphabet: Scenario.Alphabet

    static let letters: [String] = "abcdefghijklmnopqrstuvwxyz".map(String.init)
    static let unicodePieces: [String] = [
        "é", "e\u{301}", "a\u{308}", "ñ", "ß", "Ω", "東", "京", "한", "글",
        "👍", "👍🏽", "👩‍💻", "🇫🇷", "🐋", "n\u{303}", "✓", "€",
    ]

    public init(alphabet: Scenario.Alphabet) { self.alphabet = alphabet }

    /// One keystroke's worth of text.
    public func character(using rng: inout SimRandom) -> String {
        let roll = rng.int(in: 0...99)
        if roll < 12 { return " " }
        if roll < 14 { return "\n" }
        if alphabet == .unicode, roll < 57 {
            return Self.unicodePieces[rng.int(in: 0...(Self.unicodePieces.count - 1))]
        }
        return Self.letters[rng.int(in: 0...(Self.letters.count - 1))]
    }

    /// A pasted snippet of `count` keystrokes.
    public func snippet(_ count: Int, using rng: inout SimRandom) -> String {
        var text = ""
        for _ in 0..<max(count, 1) { text += character(using: &rng) }
        return text
    }
}
