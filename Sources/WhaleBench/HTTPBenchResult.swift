import Foundation

/// One measured run of one executor in `whalesim bench http`.
struct HTTPBenchResult {
    /// What one closed-loop worker saw.
    struct Worker: Sendable {
        var latencies: [Double] = []
        var errors = 0
        var non200 = 0
        var firstError: String?
    }

    var requests: Int
    var errors: Int
    var non200: Int
    var firstError: String?
    var requestsPerSecond: Double
    var p50: Double
    var p99: Double
    var cpuPerThousand: Double

    init(parts: [Worker], seconds: Double, cpuSeconds: Double) {
        let latencies = parts.flatMap(\.latencies).sorted()
        requests = latencies.count
        errors = parts.map(\.errors).reduce(0, +)
        non200 = parts.map(\.non200).reduce(0, +)
        firstError = parts.lazy.compactMap(\.firstError).first
        requestsPerSecond = Double(requests) / seconds
        p50 = latencies.isEmpty ? 0 : latencies[latencies.count / 2]
        p99 = latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
        cpuPerThousand = requests == 0 ? 0 : cpuSeconds / Double(requests) * 1000
    }

    var line: String {
        String(
            format:
                "%.0f requests/s, p50 %.2f ms, p99 %.2f ms, CPU %.3f s per 1,000 requests, %d requests, errors %d, non-200 %d",
            requestsPerSecond, p50, p99, cpuPerThousand, requests, errors, non200)
    }

    /// Each figure's median over the runs (taken separately).
    struct Medians {
        var requestsPerSecond, p50, p99, cpuPerThousand: Double
        init(_ results: [HTTPBenchResult]) {
            requestsPerSecond = median(results.map(\.requestsPerSecond))
            p50 = median(results.map(\.p50))
            p99 = median(results.map(\.p99))
            cpuPerThousand = median(results.map(\.cpuPerThousand))
        }
        var line: String {
            String(
                format: "%.0f requests/s, p50 %.2f ms, p99 %.2f ms, CPU %.3f s per 1,000 requests",
                requestsPerSecond, p50, p99, cpuPerThousand)
        }
    }
}
