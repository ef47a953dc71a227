/// A live workload of recorded sessions (`workload: {replay: FILE, speed: X}`): each user plays
/// one of the file's sessions (round robin), its pauses divided by `speed`.
public struct ReplaySpec: Hashable, Sendable {
    /// The session file (docs/sessions.md), relative to the working directory.
    public var file: String
    /// 2: twice as fast as recorded; 0.5: half.
    public var speed: Double = 1
    public init(file: String, speed: Double = 1) {
        self.file = file
        self.speed = speed
    }
}
