import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A session file (docs/sessions.md): JSON lines, a header line, one line per
/// ``SessionEvent`` in time order, and an end line with the count, so a file cut short or
/// damaged is told from a whole one.
///
/// ```text
/// {"whalesimSession":1,"source":"record","upstream":"http://127.0.0.1:8080","startedAt":"2026-11-29T08:00:00Z"}
/// {"t":12,"session":"s1","connection":"c1","target":"whaler","kind":"http","method":"POST","path":"/api/user/login",...}
/// {"end":{"events":1,"sessions":["s1"]}}
/// ```
public struct SessionRecording: Sendable, Equatable {
    public struct Header: Codable, Sendable, Equatable {
        public var whalesimSession: Int
        /// `record` (the recording proxy) or `har` (`import-har`).
        public var source: String
        public var upstream: String?
        public var salesforceUpstream: String?
        public var startedAt: String?
        public init(
            source: String, upstream: String? = nil, salesforceUpstream: String? = nil, startedAt: String? = nil
        ) {
            self.whalesimSession = SessionRecording.version
            self.source = source
            self.upstream = upstream
            self.salesforceUpstream = salesforceUpstream
            self.startedAt = startedAt
        }
    }

    struct End: Codable, Equatable {
        struct Body: Codable, Equatable {
            var events: Int
            var sessions: [String]
        }
        var end: Body
    }

    public static let version = 1

    public var header: Header
    public var events: [SessionEvent]

    public init(header: Header, events: [SessionEvent]) {
        self.header = header
        self.events = events
    }

    /// The sessions in order of their first event (`s0`, what no login accounts for, included).
    public var sessions: [String] {
        var seen: Set<String> = []
        var order: [String] = []
        for e in events where seen.insert(e.session).inserted { order.append(e.session) }
        return order
    }

    /// The events of one session, in time order.
    public func events(of session: String) -> [SessionEvent] { events.filter { $0.session == session } }

    /// Every session's events, sessions in order of their first event: one pass, for a file of
    /// hundreds of sessions (``events(of:)`` per session is a pass each).
    public var bySession: [(session: String, events: [SessionEvent])] {
        var index: [String: Int] = [:]
        var out: [(session: String, events: [SessionEvent])] = []
        for e in events {
            if let i = index[e.session] {
                out[i].events.append(e)
            } else {
                index[e.session] = out.count
                out.append((e.session, [e]))
            }
        }
        return out
    }

    static func line(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = (try? encoder.encode(value)) ?? Data("null".utf8)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// The whole file's bytes.
    public func encoded() -> Data {
        var data = Self.line(header)
        for e in events { data.append(Self.line(e)) }
        data.append(Self.line(End(end: .init(events: events.count, sessions: sessions))))
        return data
    }

    /// Writes the file, owner-only (0600).
    public func write(to path: String) throws(SessionFileError) {
        let writer = try SessionFileWriter(path: path, header: header)
        for e in events { writer.append(e) }
        try writer.finish()
    }

    /// Reads and checks a session file. A line that is not what its place asks for, a last line
    /// cut short, a missing end line or an end line whose count disagrees is refused with the
    /// byte offset where the file breaks.
    public static func read(path: String) throws(SessionFileError) -> SessionRecording {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SessionFileError(path: path, offset: nil, "cannot read the file")
        }
        return try decode(data, path: path)
    }

    /// `using`: the line parser (json-c unless a benchmark asks for Foundation's, SessionLineDecoder).
    public static func decode(_ data: Data, path: String, using lineDecoder: SessionLineDecoder = .jsonC)
        throws(SessionFileError) -> SessionRecording
    {
        let bytes = [UInt8](data)
        guard !bytes.isEmpty else { throw SessionFileError(path: path, offset: 0, "the file is empty") }
        var lines: [(offset: Int, bytes: ArraySlice<UInt8>)] = []
        var start = 0
        for i in bytes.indices where bytes[i] == UInt8(ascii: "\n") {
            lines.append((start, bytes[start..<i]))
            start = i + 1
        }
        let reader = LineReader(decoder: lineDecoder)
        // The header first: a file that is no session file at all is said to be that, not cut short.
        let header = lines.first.flatMap { reader.header($0.bytes) }
        if start < bytes.count, header != nil || lines.isEmpty {
            throw SessionFileError(
                path: path, offset: start,
                "the last line is cut short (no newline after \(bytes.count - start) bytes): the file was written only in part"
            )
        }
        guard let header else {
            throw SessionFileError(
                path: path, offset: 0, "the first line is not a session file header ({\"whalesimSession\": 1, ...})")
        }
        guard header.whalesimSession == version else {
            throw SessionFileError(
                path: path, offset: 0,
                "session file version \(header.whalesimSession); this whalesim reads version \(version)")
        }
        var events: [SessionEvent] = []
        events.reserveCapacity(lines.count)
        var end: End?
        for (n, line) in lines.enumerated().dropFirst() {
            if end != nil {
                throw SessionFileError(path: path, offset: line.offset, "line \(n + 1) comes after the end line")
            }
            let parsed: LineReader.Line
            do { parsed = try reader.line(line.bytes) } catch {
                throw SessionFileError(
                    path: path, offset: line.offset, "line \(n + 1) is not a session event: \(error.message)")
            }
            switch parsed {
            case .end(let e): end = e
            case .event(let event):
                if let last = events.last, event.t < last.t {
                    throw SessionFileError(
                        path: path, offset: line.offset,
                        "line \(n + 1): time \(event.t) ms is before the previous event's \(last.t) ms")
                }
                events.append(event)
            }
        }
        guard let end else {
            throw SessionFileError(
                path: path, offset: bytes.count,
                "no end line: the recorder did not stop cleanly (killed?), so the file may lack what it was writing")
        }
        guard end.end.events == events.count else {
            throw SessionFileError(
                path: path, offset: lines.last!.offset,
                "the end line counts \(end.end.events) events, the file holds \(events.count): lines are missing or added"
            )
        }
        return SessionRecording(header: header, events: events)
    }

    /// A session file's lines read by one parser: the header, then each event or the end line.
    final class LineReader {
        enum Line {
            case end(End)
            case event(SessionEvent)
        }
        let decoder: SessionLineDecoder
        let tokener = SessionLineDecoder.Tokener()
        let json = JSONDecoder()
        init(decoder: SessionLineDecoder) { self.decoder = decoder }

        func header(_ b: ArraySlice<UInt8>) -> Header? {
            switch decoder {
            case .foundation: return try? json.decode(Header.self, from: Data(b))
            case .jsonC:
                guard case .success(let v) = tokener.parse(b), let version = v["whalesimSession"]?.int,
                    let source = v["source"]?.string
                else { return nil }
                var h = Header(
                    source: source, upstream: v["upstream"]?.string,
                    salesforceUpstream: v["salesforceUpstream"]?.string,
                    startedAt: v["startedAt"]?.string)
                h.whalesimSession = version
                return h
            }
        }

        func line(_ b: ArraySlice<UInt8>) throws(SessionFileError) -> Line {
            switch decoder {
            case .foundation:
                if let e = try? json.decode(End.self, from: Data(b)) { return .end(e) }
                do { return .event(try json.decode(SessionEvent.self, from: Data(b))) } catch {
                    throw SessionFileError(path: "", offset: nil, SessionRecording.why(error))
                }
            case .jsonC:
                switch tokener.parse(b) {
                case .failure(let e): throw SessionFileError(path: "", offset: nil, "not valid JSON (\(e.why))")
                case .success(let v):
                    if case .object(let o) = v, o.count == 1, let body = o["end"], let count = body["events"]?.int,
                        let sessions = body["sessions"]?.array
                    {
                        return .end(End(end: .init(events: count, sessions: sessions.compactMap { $0.string })))
                    }
                    return .event(try SessionEvent(value: v))
                }
            }
        }
    }

    static func why(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _): "missing key \"\(key.stringValue)\""
        case .typeMismatch(_, let c), .valueNotFound(_, let c):
            "\"\(c.codingPath.map(\.stringValue).joined(separator: "."))\": \(c.debugDescription)"
        case .dataCorrupted(let c):
            c.codingPath.isEmpty
                ? "not valid JSON"
                : "\"\(c.codingPath.map(\.stringValue).joined(separator: "."))\": \(c.debugDescription)"
        default: "\(error)"
        }
    }
}

/// A session file that cannot be read or written, with where it breaks.
public struct SessionFileError: Error, CustomStringConvertible, Sendable, Equatable {
    public var path: String
    /// The byte offset where the file breaks (nil: the file itself could not be opened).
    public var offset: Int?
    public var message: String
    public init(path: String, offset: Int?, _ message: String) {
        self.path = path
        self.offset = offset
        self.message = message
    }
    public var description: String {
        "\(path)\(offset.map { " at byte \($0)" } ?? ""): \(message)"
    }
}

/// Appends events to a session file as they come (a line each, written at once, so a stop keeps
/// everything before it), owner-only; ``finish()`` writes the end line.
public final class SessionFileWriter: @unchecked Sendable {
    private let lock = NSLock()
    private let fd: Int32
    private let path: String
    private var count = 0
    private var sessions: [String] = []
    private var finished = false

    public init(path: String, header: SessionRecording.Header) throws(SessionFileError) {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw SessionFileError(
                path: path, offset: nil, "cannot create the file: \(String(cString: strerror(errno)))")
        }
        // An existing file keeps its mode through O_TRUNC: make it owner-only too.
        fchmod(fd, 0o600)
        write(SessionRecording.line(header))
    }

    private func write(_ data: Data) {
        data.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + done, raw.count - done)
                if n <= 0 { if errno == EINTR { continue } else { return } }
                done += n
            }
        }
    }

    private var lastTime = 0

    /// Appends `event`; a time a concurrent connection already passed is written as that time
    /// (events are stamped before they take the lock), so the file stays in time order.
    public func append(_ event: SessionEvent) {
        lock.withLock {
            guard !finished else { return }
            var event = event
            event.t = max(event.t, lastTime)
            lastTime = event.t
            write(SessionRecording.line(event))
            count += 1
            if !sessions.contains(event.session) { sessions.append(event.session) }
        }
    }

    /// How many events are written.
    public var events: Int { lock.withLock { count } }

    /// Writes the end line and closes the file (once).
    public func finish() throws(SessionFileError) {
        let failed: Bool = lock.withLock {
            guard !finished else { return false }
            finished = true
            write(SessionRecording.line(SessionRecording.End(end: .init(events: count, sessions: sessions))))
            let synced = fsync(fd) == 0
            return close(fd) != 0 || !synced
        }
        if failed { throw SessionFileError(path: path, offset: nil, "could not write the file to disk") }
    }
}
