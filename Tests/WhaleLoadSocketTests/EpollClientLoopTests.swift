#if canImport(Glibc)
    import Foundation
    import Glibc
    import NIOConcurrencyHelpers
    import NIOCore
    import NIOPosix
    import Testing
    import WhaleLoad

    /// ``EpollClientLoop``'s sockets against the scripted server of ``LeanSocketFrameTests``
    /// (NIO's handshake, then raw chunks 20 ms apart). What each input gets:
    /// - frames split anywhere, with 7-, 16- and 64-bit lengths: each message whole and in order;
    /// - a ping: a masked pong with its payload; what the client sends: masked, intact underneath;
    /// - fragments, a ping between them: joined into one message;
    /// - a close frame: the socket closes, "the server sent a close frame";
    /// - a refused connection, a host name that does not resolve, an upgrade answered 404: closed,
    ///   each with its reason; the loop keeps serving the other sockets.
    @Suite struct EpollClientLoopTests {
        /// Records what the loop reports, in order.
        final class Log: EpollClientHandler, @unchecked Sendable {
            let events = NIOLockedValueBox<[String]>([])
            let messages = NIOLockedValueBox<[String]>([])
            var onOpen: ((EpollClientSocket) -> Void)?
            var onTimer: ((EpollClientSocket) -> Void)?
            func opened(_ socket: EpollClientSocket) {
                events.withLockedValue { $0.append("opened \(socket.index)") }
                onOpen?(socket)
            }
            func received(_ socket: EpollClientSocket, _ payload: UnsafeRawBufferPointer) {
                let text = String(decoding: payload, as: UTF8.self)
                messages.withLockedValue { $0.append(text) }
            }
            func timerFired(_ socket: EpollClientSocket) {
                events.withLockedValue { $0.append("timer \(socket.index)") }
                onTimer?(socket)
            }
            func closed(_ socket: EpollClientSocket, reason: String) {
                events.withLockedValue { $0.append("closed \(socket.index): \(reason)") }
            }
        }

        static func port(_ url: String) -> Int { URL(string: url)!.port! }

        @Test func framesSplitAnywhereArriveWholeAndWhatItSendsIsMasked() async throws {
            let (script, messages) = LeanSocketFrameTests.splitAnywhereScript()
            let server = try await ScriptServer.start(script: script)
            defer { server.stop() }
            let log = Log()
            log.onOpen = { $0.send("from the client: ü") }
            let loop = EpollClientLoop(name: "epoll-test", handler: log)
            defer { loop.stop() }
            _ = loop.open(
                index: 7, host: "127.0.0.1", port: Self.port(server.url), path: "/", headers: [("ObjectId", "x")])
            try await LeanSocketFrameTests.waitUntil { log.messages.withLockedValue { $0.count } == 5 }
            #expect(log.messages.withLockedValue { $0 } == messages)
            #expect(log.events.withLockedValue { $0 } == ["opened 7"])
            try await LeanSocketFrameTests.waitUntil { server.clientFrames().count >= 2 }
            let frames = server.clientFrames()
            #expect(frames.contains { $0.opcode == 0x1 && $0.payload == Array("from the client: ü".utf8) })
            #expect(
                frames.contains { $0.opcode == 0xA && $0.payload == Array("p1".utf8) },
                "the ping is answered with its payload")
            #expect(frames.allSatisfy { $0.masked }, "every client frame is masked")
        }

        @Test func aCloseFrameClosesTheSocketAndTimersFireOnTheLoop() async throws {
            let server = try await ScriptServer.start(script: [
                LeanSocketFrameTests.frame(.text, Array("hi".utf8)),
                LeanSocketFrameTests.frame(.close, [0x03, 0xE8]),
            ])
            defer { server.stop() }
            let log = Log()
            log.onOpen = { $0.schedule(afterMs: 5) }
            let loop = EpollClientLoop(name: "epoll-test", handler: log)
            defer { loop.stop() }
            _ = loop.open(index: 1, host: "localhost", port: Self.port(server.url), path: "/", headers: [])
            try await LeanSocketFrameTests.waitUntil { log.events.withLockedValue { $0.count } == 3 }
            #expect(
                log.events.withLockedValue { $0 } == ["opened 1", "timer 1", "closed 1: the server sent a close frame"])
            #expect(log.messages.withLockedValue { $0 } == ["hi"])
        }

        @Test func refusedUnknownAndNotUpgradedSocketsCloseWithTheirReasons() async throws {
            // A port nothing listens on: bind one, note it, close it.
            let probe = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(
                host: "127.0.0.1", port: 0
            ).get()
            let closedPort = probe.localAddress!.port!
            try await probe.close()
            let http = try await Self.notFoundServer()
            defer { http.close(promise: nil) }
            let good = try await ScriptServer.start(script: [
                LeanSocketFrameTests.frame(.text, Array("still here".utf8))
            ])
            defer { good.stop() }

            let log = Log()
            let loop = EpollClientLoop(name: "epoll-test", handler: log)
            defer { loop.stop() }
            _ = loop.open(index: 1, host: "127.0.0.1", port: closedPort, path: "/", headers: [])
            _ = loop.open(index: 2, host: "whaler.invalid", port: 80, path: "/", headers: [])
            _ = loop.open(index: 3, host: "127.0.0.1", port: http.localAddress!.port!, path: "/", headers: [])
            _ = loop.open(index: 4, host: "127.0.0.1", port: Self.port(good.url), path: "/", headers: [])
            try await LeanSocketFrameTests.waitUntil {
                log.events.withLockedValue { $0.count } == 4 && log.messages.withLockedValue { $0.count } == 1
            }
            let events = log.events.withLockedValue { $0 }
            #expect(events.contains("closed 1: connect: Connection refused"), "\(events)")
            #expect(events.contains("closed 2: cannot resolve whaler.invalid"), "\(events)")
            #expect(events.contains { $0.hasPrefix("closed 3: the upgrade was refused: HTTP/1.1 404") }, "\(events)")
            #expect(events.contains("opened 4"))
            #expect(log.messages.withLockedValue { $0 } == ["still here"])
        }

        /// A server that answers anything with 404 (no upgrade).
        static func notFoundServer() async throws -> any Channel {
            try await cannedServer("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
        }

        /// A server that answers each read with `answer`, whatever was asked.
        static func cannedServer(_ answer: String) async throws -> any Channel {
            try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(Canned(answer: answer))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
        }

        final class Canned: ChannelInboundHandler, Sendable {
            typealias InboundIn = ByteBuffer
            typealias OutboundOut = ByteBuffer
            let answer: String
            init(answer: String) { self.answer = answer }
            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: answer)), promise: nil)
            }
        }
    }
#endif
