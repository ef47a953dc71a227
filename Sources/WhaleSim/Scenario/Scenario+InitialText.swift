extension Scenario {
    /// `text` followed by numbered note lines up to exactly `scalars` Unicode scalars (a text
    /// already that long is cut): `text.initial-size` gives large notes without pasting tens of
    /// thousands of characters into a scenario file. Deterministic, no RNG.
    ///
    /// ```swift
    /// Scenario.padded("Notes\n", toScalars: 40)  // "Notes\nLine 00001: call back about pric"
    /// ```
    static func padded(_ text: String, toScalars scalars: Int) -> String {
        var view = text.unicodeScalars
        var line = 1
        while view.count < scalars {
            let number = String(line)
            let padded = String(repeating: "0", count: max(0, 5 - number.count)) + number
            view.append(
                contentsOf: "Line \(padded): call back about pricing, renewal dates and the next steps.\n"
                    .unicodeScalars)
            line += 1
        }
        if view.count > scalars { view = String.UnicodeScalarView(view.prefix(scalars)) }
        return String(view)
    }
}
