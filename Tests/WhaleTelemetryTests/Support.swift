import Foundation
import NIOConcurrencyHelpers
import WhaleTelemetry
import WhalesimTesting

/// Helpers of the endpoint tests: curl, a free port, the figures a test feeds the server.
enum Support {
    static let curl: String? =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")
        ? "/usr/bin/curl" : ExternalProcess.which("curl")
    static let curlHint = "no curl here (scripts/setup --tests installs it): the HTTP checks are skipped"

    /// curl's output (`-s`, plus `arguments`), failing the test on a transport error.
    static func curl(_ arguments: [String], timeout: Duration = .seconds(20)) async throws -> ExternalProcess.Output {
        try await ExternalProcess.run(curl ?? "/usr/bin/curl", ["-s", "-S"] + arguments, timeout: timeout)
    }

    /// A port nothing listens on now (bound then released; another process may take it, rarely).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EBADF) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A run's figures that move: `tick()` adds ops, acks and a latency sample each call.
    final class MovingRun: Sendable {
        private let state = NIOLockedValueBox((ticks: 0, histogram: TelemetryHistogram()))
        let run = RunLabels(scenario: "soak", seed: "7", runID: "test-run", shard: "0/1")

        func tick() {
            state.withLockedValue { state in
                state.ticks += 1
                state.histogram.add(0.002, count: 90)
                state.histogram.add(0.03, count: 9)
                state.histogram.add(Double(state.ticks % 5 + 1) * 0.2, count: 1)
            }
        }

        func snapshot(phase: String = "running") -> TelemetrySnapshot {
            let (ticks, histogram) = state.withLockedValue { ($0.ticks, $0.histogram) }
            var snapshot = TelemetrySnapshot(
                run: run,
                status: RunStatus(
                    phase: phase, elapsedSeconds: Double(ticks), title: "run soak (seed 7)",
                    faultWindows: [.init(kind: "partition", startSeconds: 2, endSeconds: 4)],
                    checkers: [
                        .init(name: "convergence", state: "valid"), .init(name: "no-lost-edits", state: "pending"),
                    ]))
            snapshot.set(MetricCatalog.opAck, histogram: histogram)
            snapshot.set(MetricCatalog.ops, ticks * 100)
            snapshot.set(MetricCatalog.acks, ticks * 100)
            snapshot.set(MetricCatalog.clientsConnected, 40 + ticks % 3)
            snapshot.set(MetricCatalog.errors, labels: ["code": "4003"], ticks / 2)
            snapshot.set(MetricCatalog.checkerViolations, labels: ["checker": "convergence"], 0)
            return snapshot
        }
    }
}
