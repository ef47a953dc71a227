import Foundation
import Testing
import WhaleTelemetry

/// A dashboard client that never reads (a raw socket with a small receive buffer) or that goes
/// away must not slow `publish`: its buffer is bounded, the excess frames are dropped and
/// counted (`whalesim_telemetry_dropped_events_total`), and `stop` still ends in bounded time.
@Suite(.serialized) struct SlowEventClientTests {
    /// Connects to 127.0.0.1:port and asks for /events, then never reads.
    static func stuckClient(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var small: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { throw POSIXError(.ECONNREFUSED) }
        let request = "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        return fd
    }

    static func waitUntil(_ condition: () -> Bool, within limit: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    @Test(.timeLimit(.minutes(1)))
    func aClientThatNeverReadsNeitherSlowsPublishNorStop() async throws {
        var configuration = TelemetryServer.Configuration()
        configuration.eventBuffer = 4
        let server = try await TelemetryServer.start(listen: "127.0.0.1:0", configuration: configuration)
        let fd = try Self.stuckClient(port: server.port)
        defer { close(fd) }
        #expect(await Self.waitUntil { server.eventClients == 1 })

        // 2,000 frames of about 4 kB: 8 MB, far more than the socket buffers and the client's 4 frames hold.
        var snapshot = Support.MovingRun().snapshot()
        snapshot.status.title = String(repeating: "x", count: 4000)
        let frames = 2000
        let started = ContinuousClock.now
        for index in 0..<frames {
            snapshot.status.elapsedSeconds = Double(index)
            server.publish(snapshot)
        }
        let took = ContinuousClock.now - started
        #expect(took < .seconds(3), "publishing to a stuck client took \(took)")
        #expect(await Self.waitUntil { server.droppedEvents > frames / 2 }, "dropped only \(server.droppedEvents)")
        #expect(server.droppedEvents <= frames)

        if Support.curl != nil {
            let metrics = try await Support.curl([server.url + "metrics"])
            let line = metrics.stdout.split(separator: "\n").first {
                $0.hasPrefix("whalesim_telemetry_dropped_events_total")
            }
            let count = line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
            #expect(count > frames / 2, "\(line ?? "no dropped-events line")")
            #expect(
                metrics.stdout.split(separator: "\n").contains {
                    $0.hasPrefix("whalesim_telemetry_event_clients{") && $0.hasSuffix(" 1")
                })
        }
        let stopping = ContinuousClock.now
        await server.stop()
        #expect(ContinuousClock.now - stopping < .seconds(5), "stop waited on the stuck client")
    }

    @Test(.timeLimit(.minutes(1)))
    func aVanishedClientIsForgotten() async throws {
        let server = try await TelemetryServer.start(listen: "127.0.0.1:0")
        defer { Task { await server.stop() } }
        let fd = try Self.stuckClient(port: server.port)
        #expect(await Self.waitUntil { server.eventClients == 1 })
        close(fd)
        var snapshot = Support.MovingRun().snapshot()
        let gone = await Self.waitUntil(
            {
                snapshot.status.elapsedSeconds += 1
                server.publish(snapshot)
                return server.eventClients == 0
            }, within: .seconds(10))
        #expect(gone, "the closed client is still counted")
    }
}
