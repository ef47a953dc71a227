/// Revision and acknowledgement sanity: a client's revision never goes back; acks come in
/// the order the ops were invoked and never twice; a server document's revision only moves
/// by applying ops (never back, not even across a restart: it persists before it acks); and
/// at the end each server document's revision equals its history count.
///
/// It keeps an op from its invoke to its first acknowledgement, and the last acknowledged ops
/// (``recentAckCapacity`` per client) to tell a second acknowledgement: a second one for an op
/// acknowledged longer ago is reported as an acknowledgement of an op never invoked (invalid too).
public enum RevisionChecker {
    /// Acknowledged ops remembered per client (at least 1,024 in all) for the second-ack check.
    static let recentAckCapacity = 8

    public static func check(_ history: History) -> CheckResult {
        judge(history).result
    }

    /// The check, and the most it held at once.
    static func judge(_ history: History) -> (result: CheckResult, footprint: CheckFootprint) {
        let (evidence, footprint) = read(history, endClaims: true)
        return (evidence.result(.revisions), footprint)
    }

    /// The lines a history still being written has earned so far (``CheckSoFar``): every
    /// per-event check, but not the log's revision anomalies, which a gap the recorder has not
    /// written down yet (a recorder down with its server) would raise and the end's account fills.
    static func evidence(_ history: History) -> Evidence {
        read(history, endClaims: false).evidence
    }

    private static func read(_ history: History, endClaims: Bool) -> (evidence: Evidence, footprint: CheckFootprint) {
        var evidence = Evidence()
        // The log is read only for its anomalies and conflicts: a window of one op per note.
        var log = AppliedLog(documents: history.documentNames.count, windowSize: 1)
        var footprint = CheckFootprint()
        var revision: [Int: Int] = [:]
        var invokes = 0
        // Ops invoked and not acknowledged yet: their place among the invokes.
        var inFlight: [String: Int] = [:]
        var lastAck: [Int: (id: String, index: Int)] = [:]
        var recentAcks = RecentAcks(capacity: max(1024, recentAckCapacity * history.clientNames.count))
        for entry in history.events {
            log.consume(entry, history: history)
            let t = entry.time
            switch entry.event {
            case .invoke(_, let id, _, _):
                inFlight[id] = invokes
                invokes += 1
            case .clientRevision(let c, let r):
                if let old = revision[c], r < old {
                    evidence.invalid("t=\(t) \(history.clientNames[c])'s revision went back from \(old) to \(r)")
                }
                revision[c] = r
            case .ack(let c, let id, _):
                let name = history.clientNames[c]
                let again = recentAcks.index(of: id)
                if again != nil {
                    evidence.invalid("t=\(t) \(name) got a second acknowledgement for \(id)")
                }
                if let index = inFlight.removeValue(forKey: id) ?? (again ?? nil) {
                    if let previous = lastAck[c], previous.index > index {
                        evidence.invalid(
                            "t=\(t) \(name): \(id) acknowledged after \(previous.id), though invoked before it")
                    }
                    lastAck[c] = (id, index)
                    recentAcks.append(id, index: index)
                } else {
                    evidence.invalid("t=\(t) \(name) got an acknowledgement for \(id), which it never invoked")
                    recentAcks.append(id, index: nil)
                }
            case .serverRevision(let d, let from, let to, let cause) where to < from:
                evidence.invalid(
                    "t=\(t) \(history.documentNames[d])'s server revision went back from \(from) to \(to) (\(cause))")
            case .serverFinal(let d, _, let r, let count):
                if r != count {
                    evidence.invalid(
                        "\(history.documentNames[d]): server revision \(r) but \(count) ops in its history")
                }
            default: break
            }
            footprint.see(windowEntries: log.peakEntries, opEntries: inFlight.count + recentAcks.count)
        }
        if endClaims {
            for line in log.anomalies { evidence.invalid(line) }
            for line in log.conflicts { evidence.invalid(line) }
        }
        return (evidence, footprint)
    }
}

/// The last acknowledged op ids, oldest forgotten first, with the place of each among the invokes
/// (nil for one never invoked).
struct RecentAcks {
    let capacity: Int
    private var ring: [String] = []
    private var next = 0
    private var index: [String: Int?] = [:]

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { index.count }

    /// Whether `id` was acknowledged lately: its place among the invokes (`.some(nil)`: never invoked).
    func index(of id: String) -> Int?? { index[id] }

    mutating func append(_ id: String, index i: Int?) {
        guard index[id] == nil else { return }
        if ring.count < capacity {
            ring.append(id)
        } else {
            index[ring[next]] = nil
            ring[next] = id
        }
        next = (next + 1) % capacity
        index[id] = .some(i)
    }
}
