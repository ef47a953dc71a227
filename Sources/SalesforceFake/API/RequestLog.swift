/// One request as the fake saw it, for reports.
public struct RequestLogEntry: Sendable, Equatable {
    /// Position in the whole run (1-based), also counting entries dropped from the bounded log.
    public var sequence: Int
    /// Who asked: the session's username, `login:<username>` for logins, `anonymous` otherwise.
    public var client: String
    /// The first 12 characters of the bearer token, empty when there was none.
    public var tokenPrefix: String
    public var method: String
    public var path: String
    public var endpoint: SFEndpoint
    /// The SOQL text of query requests.
    public var soql: String?
    public var status: Int
    /// Records in the response page (query, next page, record GET).
    public var rows: Int
    /// Time spent in the handler, in microseconds (measured, reporting only: no decision reads it).
    public var handlerMicroseconds: Int
    /// Latency injected by the configuration, in milliseconds.
    public var injectedDelayMilliseconds: Double
    /// The injected fault, if any.
    public var fault: InjectedFault?

    /// A single report line: `#12 admin@whaler.test GET /services/data/v59.0/query 200 rows=3 ...`.
    public var line: String {
        var text = "#\(sequence) \(client) \(method) \(path) \(status) rows=\(rows) handler=\(handlerMicroseconds)us"
        if injectedDelayMilliseconds > 0 { text += " delay=\(Int(injectedDelayMilliseconds.rounded()))ms" }
        if let fault { text += " fault=\(fault.rawValue)" }
        if let soql { text += " soql=\(soql)" }
        return text
    }
}

/// A bounded, ordered request log (a ring buffer: the oldest entries go first).
public struct RequestLog: Sendable {
    public let capacity: Int
    private var storage: [RequestLogEntry] = []
    private var head = 0
    /// Requests recorded over the whole run, including dropped ones.
    public private(set) var total = 0

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    mutating func append(_ entry: RequestLogEntry) {
        total += 1
        if storage.count < capacity {
            storage.append(entry)
        } else {
            storage[head] = entry
            head = (head + 1) % capacity
        }
    }

    /// The kept entries, oldest first.
    public var entries: [RequestLogEntry] {
        Array(storage[head...] + storage[..<head])
    }

    /// Entries dropped because the log was full.
    public var dropped: Int { total - storage.count }
}
