import WhaleSim

extension RunCommand {
    /// `30s`, `2m`, `500ms` as milliseconds (at most a day), or nil: the scenarios' reader, `DurationText`.
    static func parseDuration(_ text: String) -> Int? {
        guard case .milliseconds(let ms) = DurationText.parse(text), ms <= 86_400_000 else { return nil }
        return Int(ms.rounded())
    }
}
