/// A switchable mutation of client or server logic that reproduces a known defect (most from the
/// original Whaler). Off by default. Each must be caught by a checker in seeded simulation runs:
/// that proves the checkers can fail.
public enum Fault: String, CaseIterable, Sendable, Hashable, Codable, CustomStringConvertible {
    case clientTiePriority = "client-tie-priority"
    case utf8LengthUnits = "utf8-length-units"
    case graphemeLengthUnits = "grapheme-length-units"
    case composeSignError = "compose-sign-error"
    case reconnectDropsUnacked = "reconnect-drops-unacked"
    case serverDropsSlowClient = "server-drops-slow-client"
    case serverAppliesResendTwice = "server-applies-resend-twice"
    case remoteCursorWrongRule = "remote-cursor-wrong-rule"
    case revisionResetOnEmpty = "revision-reset-on-empty"
    case staleRefetchOverwrites = "stale-refetch-overwrites"
    case echoStorm = "echo-storm"
    case utf8LengthTransform = "utf8-length-transform"
    case ackBeforeDurable = "ack-before-durable"
    // The edges (issue 48): defects a real server has at a boundary its extremes never touch.
    case tokenExpiryLeewayDay = "token-expiry-leeway-day"
    case refreshTokenReuse = "refresh-token-reuse"
    case revisionPastHeadAccepted = "revision-past-head-accepted"
    case sizeLimitOffByOne = "size-limit-off-by-one"
    case rateLimitOffByOne = "rate-limit-off-by-one"
    case noteIdPrefixMatch = "note-id-prefix-match"
    case rejoinLosesUpdate = "rejoin-loses-update"

    /// One line saying what the fault does.
    public var summary: String {
        switch self {
        case .clientTiePriority: "client gives the server op tie priority (the Whaler and mb0 bug)"
        case .utf8LengthUnits: "client counts positions and lengths in UTF-8 bytes instead of Unicode scalars"
        case .graphemeLengthUnits: "client counts positions and lengths in grapheme clusters instead of Unicode scalars"
        case .composeSignError: "client's compose has a sign error on the insert/delete branch"
        case .reconnectDropsUnacked: "client throws unacknowledged edits away when it reconnects"
        case .serverDropsSlowClient: "server drops messages to a slow client (full send buffer)"
        case .serverAppliesResendTwice: "server applies an op resent after a reconnect a second time"
        case .remoteCursorWrongRule: "client moves remote cursors by the ot.js rule instead of the remote rule"
        case .revisionResetOnEmpty: "server resets a document's revision to 0 when its last client leaves"
        case .staleRefetchOverwrites:
            "model client applies a refetch answered before a newer update it already has (the original's refetch race)"
        case .echoStorm:
            "model client re-saves the single record after a refetch, echoing resourceUpdate between clients forever"
        case .utf8LengthTransform:
            "server's transform counts insert lengths in UTF-8 bytes while its document counts code points (the original backend's), so concurrent non-ASCII edits are refused"
        case .ackBeforeDurable:
            "server acknowledges an op once its commit is queued, not once it is durable (a power loss loses acknowledged ops)"
        case .tokenExpiryLeewayDay:
            "server accepts an access token for a day past its expiry (a clock-skew leeway of 86400 s where seconds were meant)"
        case .refreshTokenReuse:
            "server rotates refresh tokens but never revokes the one it exchanged, so a stolen old refresh token still works"
        case .revisionPastHeadAccepted:
            "server's revision check is off by one: a docChange one past the head is applied as if at the head, not refused with badRevision"
        case .sizeLimitOffByOne:
            "server refuses a message of exactly its size limit as tooLarge (< for <=), so a client that fills the limit is cut off"
        case .rateLimitOffByOne:
            "server's rate limiter counts a window's messages and refuses the one that reaches the burst (>= for >), so a client sending exactly the allowed burst is limited"
        case .noteIdPrefixMatch:
            "server authorizes a note or pool by its id's first 24 characters, so another organization's note whose id differs after them is let in"
        case .rejoinLosesUpdate:
            "server's pool leave removes every socket of the leaving user, so a member that rejoined before its old socket's close was seen gets no more resourceUpdates"
        }
    }

    /// Whether the mutation sits in the client (otherwise in the server).
    public var isClientSide: Bool {
        switch self {
        case .serverDropsSlowClient, .serverAppliesResendTwice, .revisionResetOnEmpty, .utf8LengthTransform,
            .ackBeforeDurable, .tokenExpiryLeewayDay, .refreshTokenReuse, .revisionPastHeadAccepted, .sizeLimitOffByOne,
            .rateLimitOffByOne, .noteIdPrefixMatch, .rejoinLosesUpdate:
            false
        default: true
        }
    }

    public var description: String { rawValue }
}

/// A set of faults, switched on together. Stored as a bit set: cheap to test on hot paths and
/// with a deterministic order when listed.
public struct FaultSet: Hashable, Sendable, Codable, Sequence, ExpressibleByArrayLiteral {
    private var bits: UInt32 = 0
    public init() {}
    public init(_ faults: some Sequence<Fault>) { for fault in faults { insert(fault) } }
    public init(arrayLiteral elements: Fault...) { self.init(elements) }

    private static func bit(_ fault: Fault) -> UInt32 { 1 << UInt32(Fault.allCases.firstIndex(of: fault)!) }
    public func contains(_ fault: Fault) -> Bool { bits & Self.bit(fault) != 0 }
    public mutating func insert(_ fault: Fault) { bits |= Self.bit(fault) }
    public mutating func remove(_ fault: Fault) { bits &= ~Self.bit(fault) }
    public var isEmpty: Bool { bits == 0 }
    /// The faults in catalog order.
    public var faults: [Fault] { Fault.allCases.filter(contains) }
    public func makeIterator() -> IndexingIterator<[Fault]> { faults.makeIterator() }

    public init(from decoder: any Decoder) throws { self.init(try [Fault](from: decoder)) }
    public func encode(to encoder: any Encoder) throws { try faults.encode(to: encoder) }
}
