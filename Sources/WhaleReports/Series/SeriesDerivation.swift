/// Builds a run's time series from its history, in the history's own time (ticks for the
/// simulator): ops invoked and acknowledged per bucket, op→ack and op→remote-apply latency
/// percentiles per bucket, connected clients from connect/disconnect events, errors by kind,
/// and fault windows from the nemesis events.
///
/// op→remote-apply is the time from an op's invoke to the moment another client editing the
/// same document reaches the revision the server gave the op (its `clientRevision` event).
public enum SeriesDerivation {
    /// About this many buckets; the width is rounded to 1, 2 or 5 × 10ⁿ.
    public static let targetBuckets = 60

    public static func derive(
        _ history: [HistoryLine], documents: [RunRecordFile.DocumentClients]?, unit: String = "ticks"
    ) -> RunSeries {
        let end = max(1, (history.map(\.t).max() ?? 0) + 1)
        let width = niceWidth(end)
        let count = (end + width - 1) / width
        let starts = (0..<count).map { $0 * width }
        func bucket(_ t: Int) -> Int { min(count - 1, max(0, t / width)) }

        var invoked = [Int](repeating: 0, count: count)
        var acked = [Int](repeating: 0, count: count)
        var invokeTime: [String: Int] = [:]
        var ackSamples: [(Int, Double)] = []
        var errors: [String: [Int]] = [:]
        for line in history {
            switch line.type {
            case "invoke":
                invoked[bucket(line.t)] += 1
                if let id = line.opId, invokeTime[id] == nil { invokeTime[id] = line.t }
            case "ack":
                acked[bucket(line.t)] += 1
                if let id = line.opId, let start = invokeTime[id] {
                    ackSamples.append((line.t, Double(line.t - start)))
                }
            case "error", "failed":
                let kind = line.type + ":" + (line.string("code") ?? line.string("reason") ?? "?")
                errors[kind, default: [Int](repeating: 0, count: count)][bucket(line.t)] += 1
            default: break
            }
        }
        var latency = ["op_ack": latencySeries(ackSamples, count: count, bucket: bucket)]
        let remote = remoteApplySamples(history, documents: documents, invokeTime: invokeTime)
        if !remote.isEmpty || !ackSamples.isEmpty {
            latency["op_remote_apply"] = latencySeries(remote, count: count, bucket: bucket)
        }
        return RunSeries(
            unit: unit, bucketWidth: width, bucketStarts: starts, latency: latency,
            counters: ["ops_invoked": invoked, "ops_acked": acked],
            connected: connected(history, count: count, bucket: bucket), errors: errors,
            faultWindows: FaultWindows.derive(history, end: end))
    }

    /// 1, 2 or 5 × 10ⁿ, so that `end` spans about ``targetBuckets`` buckets.
    static func niceWidth(_ end: Int) -> Int {
        let raw = max(1, (end + targetBuckets - 1) / targetBuckets)
        var scale = 1
        while true {
            for m in [1, 2, 5] where m * scale >= raw { return m * scale }
            scale *= 10
        }
    }

    static func latencySeries(_ samples: [(time: Int, value: Double)], count: Int, bucket: (Int) -> Int)
        -> LatencySeries
    {
        var perBucket = [[Double]](repeating: [], count: count)
        for s in samples { perBucket[bucket(s.time)].append(s.value) }
        let figures = perBucket.map { LatencyFigures(samples: $0) }
        return LatencySeries(
            p50: figures.map(\.p50), p90: figures.map(\.p90), p99: figures.map(\.p99), max: figures.map(\.max),
            overall: LatencyFigures(samples: samples.map(\.value)))
    }

    /// Clients connected at the end of each bucket.
    static func connected(_ history: [HistoryLine], count: Int, bucket: (Int) -> Int) -> [Int] {
        var up = Set<String>()
        var out = [Int](repeating: -1, count: count)
        for line in history {
            guard let client = line.client else { continue }
            if line.type == "connect" {
                up.insert(client)
            } else if line.type == "disconnect" {
                up.remove(client)
            } else {
                continue
            }
            out[bucket(line.t)] = up.count
        }
        var last = 0
        for i in out.indices {
            if out[i] < 0 { out[i] = last } else { last = out[i] }
        }
        return out
    }

    static func remoteApplySamples(
        _ history: [HistoryLine], documents: [RunRecordFile.DocumentClients]?, invokeTime: [String: Int]
    ) -> [(time: Int, value: Double)] {
        var clientsOf: [String: [String]] = [:]
        if let documents {
            for d in documents { clientsOf[d.name] = d.clients }
        } else {
            // Older records: the clients seen sending ops to each document.
            var seen: [String: Set<String>] = [:]
            for line in history where line.type == "serverApply" {
                if let d = line.string("document"), let c = line.client { seen[d, default: []].insert(c) }
            }
            for (d, cs) in seen { clientsOf[d] = cs.sorted() }
        }
        // Per client (by index), its revision changes in time order: parallel arrays, so the
        // inner loop below is plain integer work on big runs.
        var index: [String: Int] = [:]
        var times: [[Int]] = [], revs: [[Int]] = []
        for line in history where line.type == "clientRevision" {
            guard let c = line.client, let r = line.int("revision") else { continue }
            let k: Int
            if let known = index[c] {
                k = known
            } else {
                k = times.count; index[c] = k; times.append([]); revs.append([])
            }
            times[k].append(line.t)
            revs[k].append(r)
        }
        let others = clientsOf.mapValues { $0.map { (name: $0, index: index[$0]) } }
        var samples: [(time: Int, value: Double)] = []
        for line in history where line.type == "serverApply" {
            guard let d = line.string("document"), let origin = line.client, let id = line.opId,
                let r = line.int("revision"), let start = invokeTime[id]
            else { continue }
            for (name, k) in others[d] ?? [] where name != origin {
                guard let k else { continue }
                // Binary search to the first revision change at or after the apply, then the
                // first that reaches its revision (usually the next one or two).
                let ts = times[k], rs = revs[k]
                var lo = 0, hi = ts.count
                while lo < hi { let mid = (lo + hi) / 2; if ts[mid] < line.t { lo = mid + 1 } else { hi = mid } }
                while lo < rs.count, rs[lo] < r { lo += 1 }
                if lo < rs.count { samples.append((ts[lo], Double(ts[lo] - start))) }
            }
        }
        return samples.sorted { ($0.time, $0.value) < ($1.time, $1.value) }
    }
}
