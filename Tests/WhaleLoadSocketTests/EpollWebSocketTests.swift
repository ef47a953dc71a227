#if canImport(Glibc)
    import Foundation
    import Glibc
    import NIOConcurrencyHelpers
    import NIOCore
    import NIOPosix
    import Testing
    import WhaleLoad

    /// ``EpollWebSocket`` (the note socket of `live.runner-loop: epoll`) against the scripted server
    /// of ``LeanSocketFrameTests``: the same inputs, the same answers as ``LeanSocket``'s.
    /// - frames split anywhere, fragments with a ping between: every message whole, in order; the
    ///   ping answered; a frame sent before the upgrade goes out after it;
    /// - a masked frame: ends, close 1002; a frame over the limit: ends, close 1009; reserved bits,
    ///   an unknown opcode, a stray continuation: ends, close 1002; nothing of it delivered;
    /// - a close from the server: ends with its code and reason, the close echoed;
    /// - a server that never upgrades: `connected(timeout:)` false on time, "no upgrade within",
    ///   the connection closed; a refused port: false at once; a server whose accept key is wrong:
    ///   refused, saying so; a URL that is not `ws://`: ended at once;
    /// - a ping is answered by a pong the socket counts; `close()` sends 1000 and ends;
    ///   `onEnded` runs once, on the loop, after the end.
    /// And a task that prefers the loop as its executor runs on the loop's thread, before and after
    /// it waits on the loop's timer.
    @Suite struct EpollWebSocketTests {
        static let loop = EpollClientLoop(name: "epoll-websocket-test")

        @Test func framesSplitAnywhereArriveWholeAndFramesSentBeforeTheUpgradeGoOutAfterIt() async throws {
            let (script, messages) = LeanSocketFrameTests.splitAnywhereScript()
            let server = try await ScriptServer.start(script: script)
            defer { server.stop() }
            let received = NIOLockedValueBox<[String]>([])
            let socket = EpollWebSocket(
                url: server.url, loop: Self.loop,
                onBuffer: { bytes in received.withLockedValue { $0.append(String(decoding: bytes, as: UTF8.self)) } })
            socket.send("before the upgrade", binary: false)
            #expect(await socket.connected(timeout: .seconds(5)))
            try await LeanSocketFrameTests.waitUntil { received.withLockedValue { $0.count } == 5 }
            #expect(received.withLockedValue { $0 } == messages)
            socket.send("from the client: ü", binary: false)
            try await LeanSocketFrameTests.waitUntil { server.clientFrames().count >= 3 }
            let frames = server.clientFrames()
            #expect(
                frames.contains { $0.opcode == 0xA && $0.payload == Array("p1".utf8) },
                "the ping is answered with its payload")
            let texts = frames.filter { $0.opcode == 0x1 }.map { String(decoding: $0.payload, as: UTF8.self) }
            #expect(texts == ["before the upgrade", "from the client: ü"])
            #expect(frames.allSatisfy { $0.masked }, "every client frame is masked")
            #expect(socket.ending == nil)
            await socket.close()
            #expect(
                server.clientFrames().contains { $0.opcode == 0x8 && $0.payload.prefix(2) == [0x03, 0xE8] },
                "close() sends 1000")
        }

        @Test func brokenStreamsEndWithTheCloseCodeTheRFCNames() async throws {
            try await Self.expectViolation(
                script: [LeanSocketFrameTests.frame(.text, Array("x".utf8), masked: true)], maxFrameSize: 1 << 20,
                closeCode: 1002, error: "masked")
            try await Self.expectViolation(
                script: [LeanSocketFrameTests.frame(.text, Array(repeating: 65, count: 2_000))], maxFrameSize: 1_000,
                closeCode: 1009, error: "over the limit")
            var reserved = LeanSocketFrameTests.frame(.text, Array("x".utf8))
            reserved[0] |= 0x40
            try await Self.expectViolation(
                script: [reserved], maxFrameSize: 1 << 20, closeCode: 1002, error: "reserved bits")
            var unknown = LeanSocketFrameTests.frame(.text, Array("x".utf8))
            unknown[0] = 0x80 | 0x3
            try await Self.expectViolation(
                script: [unknown], maxFrameSize: 1 << 20, closeCode: 1002, error: "unknown opcode")
            try await Self.expectViolation(
                script: [LeanSocketFrameTests.frame(.continuation, Array("x".utf8))], maxFrameSize: 1 << 20,
                closeCode: 1002, error: "continuation")
            try await Self.expectViolation(
                script: [
                    LeanSocketFrameTests.frame(.text, Array(repeating: 66, count: 600), fin: false),
                    LeanSocketFrameTests.frame(.continuation, Array(repeating: 66, count: 600)),
                ],
                maxFrameSize: 1_000, closeCode: 1009, error: "fragmented message over the limit")
        }

        @Test func aCloseFromTheServerEndsTheSocketWithItsCodeAndIsEchoedAndOnEndedRunsOnce() async throws {
            let server = try await ScriptServer.start(script: [
                LeanSocketFrameTests.frame(.close, [0x03, 0xE9] + Array("going away".utf8))
            ])
            defer { server.stop() }
            let socket = EpollWebSocket(url: server.url, loop: Self.loop, onBytes: { _ in })
            let ended = NIOLockedValueBox<[Bool]>([])
            socket.onEnded { ended.withLockedValue { $0.append(Self.loop.inLoop) } }
            #expect(await socket.connected(timeout: .seconds(5)))
            await socket.waitEnded()
            #expect(socket.ending?.closeCode == 1001)
            #expect(socket.ending?.reason == "going away")
            try await LeanSocketFrameTests.waitUntil { server.clientFrames().contains { $0.opcode == 0x8 } }
            #expect(server.clientFrames().first { $0.opcode == 0x8 }?.payload.prefix(2) == [0x03, 0xE9])
            try await LeanSocketFrameTests.waitUntil { !ended.withLockedValue { $0 }.isEmpty }
            try await Task.sleep(for: .milliseconds(50))
            #expect(ended.withLockedValue { $0 } == [true], "once, on the loop's thread")
            // Asked after the end: at once (on the loop), not never.
            let late = NIOLockedValueBox(false)
            socket.onEnded { late.withLockedValue { $0 = true } }
            try await LeanSocketFrameTests.waitUntil { late.withLockedValue { $0 } }
        }

        @Test func pingsAreCountedByTheirPongs() async throws {
            // The script server writes only its script: the pong is scripted (it may come before
            // the ping; the count is what the half-open check reads).
            let server = try await ScriptServer.start(script: [LeanSocketFrameTests.frame(.pong, [])])
            defer { server.stop() }
            let socket = EpollWebSocket(url: server.url, loop: Self.loop, onBytes: { _ in })
            #expect(await socket.connected(timeout: .seconds(5)))
            socket.ping()
            try await LeanSocketFrameTests.waitUntil { socket.pongsReceived == 1 }
            try await LeanSocketFrameTests.waitUntil { server.clientFrames().contains { $0.opcode == 0x9 } }
            await socket.close()
        }

        @Test func anUpgradeThatNeverComesAWrongKeyARefusedPortAndABadURLEachEndWithTheirReason() async throws {
            let closed = NIOLockedValueBox(0)
            let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelInitializer { $0.pipeline.addHandler(LeanSocketTimeoutTests.Silent(closed: closed)) }
                .bind(host: "127.0.0.1", port: 0).get()
            defer { silent.close(promise: nil) }
            let quiet = EpollWebSocket(
                url: "ws://127.0.0.1:\(silent.localAddress!.port!)/socket", loop: Self.loop, onBytes: { _ in })
            let started = Date()
            #expect(await quiet.connected(timeout: .milliseconds(300)) == false)
            let waited = Date().timeIntervalSince(started)
            #expect(waited >= 0.29 && waited < 5, "gave up after \(waited) s")
            #expect(quiet.ending?.error?.contains("no upgrade within") == true, "\(String(describing: quiet.ending))")
            try await LeanSocketFrameTests.waitUntil { closed.withLockedValue { $0 } == 1 }

            let wrongKey = try await Self.wrongKeyServer()
            defer { wrongKey.close(promise: nil) }
            let forged = EpollWebSocket(
                url: "ws://127.0.0.1:\(wrongKey.localAddress!.port!)/socket", loop: Self.loop, onBytes: { _ in })
            #expect(await forged.connected(timeout: .seconds(5)) == false)
            #expect(
                forged.ending?.error?.contains("Sec-WebSocket-Accept does not match") == true,
                "\(String(describing: forged.ending))")

            let refused = EpollWebSocket(url: "ws://127.0.0.1:1/socket", loop: Self.loop, onBytes: { _ in })
            #expect(await refused.connected(timeout: .seconds(30)) == false)
            #expect(
                refused.ending?.error?.contains("connect: Connection refused") == true,
                "\(String(describing: refused.ending))")

            let notWS = EpollWebSocket(url: "http://127.0.0.1:1/socket", loop: Self.loop, onBytes: { _ in })
            #expect(await notWS.connected(timeout: .seconds(5)) == false)
            #expect(notWS.ending?.error == "not a ws:// URL: http://127.0.0.1:1/socket")
            await notWS.close()
        }

        @Test func aTaskThatPrefersTheLoopRunsOnItsThreadAcrossItsWaits() async throws {
            let loop = Self.loop
            let seen = await Task(executorPreference: loop) { () async -> [Bool] in
                var seen = [loop.inLoop]
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    loop.schedule(atUptimeNs: DispatchTime.now().uptimeNanoseconds + 20_000_000) { c.resume() }
                }
                seen.append(loop.inLoop)
                try? await Task.sleep(for: .milliseconds(5))  // a wait on another clock comes back to the loop too
                seen.append(loop.inLoop)
                return seen
            }.value
            #expect(seen == [true, true, true])
            #expect(!loop.inLoop)
        }

        // MARK: helpers

        static func expectViolation(script: [[UInt8]], maxFrameSize: Int, closeCode: UInt16, error: String) async throws
        {
            let server = try await ScriptServer.start(script: script)
            defer { server.stop() }
            let delivered = NIOLockedValueBox(0)
            let socket = EpollWebSocket(
                url: server.url, maxFrameSize: maxFrameSize, loop: Self.loop,
                onBytes: { _ in delivered.withLockedValue { $0 += 1 } })
            #expect(await socket.connected(timeout: .seconds(5)))
            await socket.waitEnded()
            let ending = try #require(socket.ending)
            #expect(ending.error?.contains(error) == true, "\(ending)")
            #expect(delivered.withLockedValue { $0 } == 0, "nothing of a broken stream is delivered")
            try await LeanSocketFrameTests.waitUntil { server.clientFrames().contains { $0.opcode == 0x8 } }
            let close = try #require(server.clientFrames().first { $0.opcode == 0x8 })
            #expect(close.payload.prefix(2) == [UInt8(closeCode >> 8), UInt8(closeCode & 0xFF)])
        }

        /// Answers any request with a 101 whose accept key is not the one the key asks for.
        static func wrongKeyServer() async throws -> any Channel {
            try await EpollClientLoopTests.cannedServer(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n")
        }
    }
#endif
