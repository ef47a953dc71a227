import Foundation
import SalesforceHTTP

/// `connections` keep-alive HTTP connections to 127.0.0.1 send GETs back to back for a while; latency
/// per request. The load generator of `whalesim bench salesforce`.
public enum HTTPLoadRun {
    public struct Result: Sendable {
        public var requests: Int
        public var errors: Int
        public var queriesPerSecond: Double
        public var p50Milliseconds: Double
        public var p99Milliseconds: Double
        public var rowsPerPage: Double
    }

    package struct Worker: Sendable {
        package var latencies: [Double] = []
        package var errors = 0
        package var rows = 0
    }

    public static func measure(
        port: Int, connections: Int, seconds: Double, targets: [String], headers: [(String, String)]
    ) async throws -> Result {
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int(seconds * 1000))
        let workers = try await withThrowingTaskGroup(of: Worker.self) { group in
            for c in 0..<connections {
                group.addTask {
                    try await KeepAliveHTTPConnection.with(host: "127.0.0.1", port: port) { connection in
                        var worker = Worker()
                        worker.latencies.reserveCapacity(4096)
                        var i = c * 7919
                        while ContinuousClock.now < deadline {
                            let target = targets[i % targets.count]
                            i += 1
                            let sent = ContinuousClock.now
                            let (status, body) = try await connection.get(target, headers: headers)
                            let elapsed = ContinuousClock.now - sent
                            worker.latencies.append(
                                Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds)
                                    * 1000)
                            if status != 200 { worker.errors += 1 }
                            worker.rows += rowsIn(body.readableBytesView)
                        }
                        return worker
                    }
                }
            }
            var all: [Worker] = []
            for try await w in group { all.append(w) }
            return all
        }
        let elapsed = ContinuousClock.now - start
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let latencies = workers.flatMap(\.latencies).sorted()
        let count = latencies.count
        func percentile(_ p: Double) -> Double { count == 0 ? 0 : latencies[min(count - 1, Int(Double(count) * p))] }
        return Result(
            requests: count, errors: workers.map(\.errors).reduce(0, +), queriesPerSecond: Double(count) / wall,
            p50Milliseconds: percentile(0.5), p99Milliseconds: percentile(0.99),
            rowsPerPage: count == 0 ? 0 : Double(workers.map(\.rows).reduce(0, +)) / Double(count))
    }

    /// Records in a query page: counts `"attributes":` occurrences (cheap, no JSON parse in the hot loop).
    package static func rowsIn<C: Collection>(_ bytes: C) -> Int where C.Element == UInt8 {
        let needle = Array("\"attributes\":".utf8)
        var count = 0, matched = 0
        for byte in bytes {
            if byte == needle[matched] {
                matched += 1
                if matched == needle.count { count += 1; matched = 0 }
            } else {
                matched = byte == needle[0] ? 1 : 0
            }
        }
        return count
    }
}
