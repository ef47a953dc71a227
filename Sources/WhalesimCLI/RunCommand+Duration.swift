extension RunCommand {
    /// `30s`, `2m`, `500ms` as milliseconds (at most a day), or nil.
    static func parseDuration(_ text: String) -> Int? {
        var t = text
        var scale = 1.0
        if t.hasSuffix("ms") {
            t.removeLast(2)
        } else if t.hasSuffix("s") {
            t.removeLast(); scale = 1000
        } else if t.hasSuffix("m") {
            t.removeLast(); scale = 60_000
        } else {
            return nil
        }
        guard let v = Double(t), v.isFinite, v >= 0, v * scale <= 86_400_000 else { return nil }
        return Int((v * scale).rounded())
    }
}
