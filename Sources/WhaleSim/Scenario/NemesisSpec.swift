/// A fault injected by the environment (not a code mutation): when it strikes and for how long.
///
/// ```yaml
/// nemeses:
///   - {kind: disconnect, every: 400, duration: 60}      # mean interval (exponential draws)
///   - {kind: server-restart, at: [3000], duration: 50}  # fixed ticks
///   - {kind: power-loss, at: [6000], duration: 50}      # a crash that also loses what was never synced
///   - {kind: slow-client, every: 900, duration: 400, factor: 30}
/// ```
public struct NemesisSpec: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// One client's connection breaks (in-flight messages lost); it reconnects after `duration`.
        case disconnect
        /// Up to half the clients are cut off (messages held) for `duration`.
        case partition
        /// The server crashes (connections and memory lost) and restarts from its persisted state after `duration`.
        case serverRestart = "server-restart"
        /// One client's incoming link gets `factor` times slower for `duration` (backpressure).
        case slowClient = "slow-client"
        /// The server's machine loses power: the server crashes as in `server-restart`, and what
        /// its storage had written but not yet made durable is lost too; it restarts after
        /// `duration`. Live, the embedded server's database runs on `whalesim lazyfs`.
        case powerLoss = "power-loss"
    }

    public var kind: Kind
    /// Mean ticks between strikes (exponentially distributed), if periodic.
    public var every: Int?
    /// Fixed ticks at which it strikes.
    public var at: [Int]
    public var duration: Int
    /// Delay multiplier for `slow-client`.
    public var factor: Int

    public init(kind: Kind, every: Int? = nil, at: [Int] = [], duration: Int, factor: Int = 20) {
        self.kind = kind
        self.every = every
        self.at = at
        self.duration = duration
        self.factor = factor
    }
}
