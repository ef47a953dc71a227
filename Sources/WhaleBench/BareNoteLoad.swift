import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import WhaleLoad

/// The yardstick of the runner's own cost (`bench run`): bare ``LeanSocket`` clients that send
/// and receive the frames the virtual clients do, on the same schedule, through the same server,
/// with none of the rest: no OT, no history, no metrics, no JSON decoding (``BareNoteTyping`` is
/// all a client knows), typing its next character after a uniform think time.
package enum BareNoteLoad {
    /// One bare client. Its state is touched by its socket's event loop and its timer, under its lock.
    package final class Client: Sendable {
        package let index: Int
        package let account: String
        package let state: NIOLockedValueBox<BareNoteTyping>
        package let socket = NIOLockedValueBox<LeanSocket?>(nil)
        package let frames: NIOLockedValueBox<Int>
        package let acks: NIOLockedValueBox<Int>

        package init(index: Int, account: String, frames: NIOLockedValueBox<Int>, acks: NIOLockedValueBox<Int>) {
            self.index = index
            self.account = account
            self.state = NIOLockedValueBox(BareNoteTyping(index: index, account: account))
            self.frames = frames
            self.acks = acks
        }

        package func receive(_ bytes: [UInt8]) {
            frames.withLockedValue { $0 += 1 }
            let (next, acked) = bytes.withUnsafeBytes { raw in state.withLockedValue { $0.receive(raw) } }
            if acked { acks.withLockedValue { $0 += 1 } }
            if let next { send(next) }
        }

        /// The user's think time is over: type a character now, or as soon as the last one is acknowledged.
        package func type() {
            if let frame = state.withLockedValue({ $0.type() }) { send(frame) }
        }

        package func send(_ frame: String) {
            frames.withLockedValue { $0 += 1 }
            socket.withLockedValue { $0 }?.send(frame)
        }
    }

    /// What one bare run measured over its steady window.
    package struct Result {
        package var window: RunnerCPUSampler.Window
        package var joined: Int
    }

    /// `clients` bare clients, `clients / noteSize` notes, each typing every `thinkMs` ± 10% for
    /// `seconds` after all have joined; the window starts 2 s in, as the virtual clients' does.
    package static func run(
        url: String, token: String, accounts: [String], clients: Int, noteSize: Int, thinkMs: Int, seconds: Int
    ) async throws -> Result {
        let frames = NIOLockedValueBox(0), acks = NIOLockedValueBox(0)
        let all = (0..<clients).map {
            Client(index: $0, account: accounts[($0 / noteSize) % accounts.count], frames: frames, acks: acks)
        }
        var joined = 0
        for batch in stride(from: 0, to: clients, by: 200) {
            let sockets = all[batch..<min(clients, batch + 200)].map { client -> LeanSocket in
                let socket = LeanSocket(
                    url: url + "?protocol=2&clientId=bare\(client.index)",
                    headers: [("ObjectId", client.account), ("Authorization", token)],
                    onBytes: { [weak client] bytes in client?.receive(bytes) })
                client.socket.withLockedValue { $0 = socket }
                return socket
            }
            for (socket, client) in zip(sockets, all[batch...]) where await socket.connected(timeout: .seconds(10)) {
                client.send(client.state.withLockedValue { $0.joinMessage })
            }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            joined = all.filter { $0.state.withLockedValue { $0.joined } }.count
            if joined == clients { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        // Each client's own timer on an event loop, with a seeded jitter (the virtual users' think time).
        let running = NIOLockedValueBox(true)
        let window = try await measureSteadyWindow(
            seconds: seconds, frames: { frames.withLockedValue { $0 } }, acks: { acks.withLockedValue { $0 } },
            startTyping: {
                for (client, first) in zip(all, BareNoteTyping.firstKeystrokes(clients: clients, thinkMs: thinkMs)) {
                    schedule(client, afterMs: first.ms, thinkMs: thinkMs, seed: first.seed, running: running)
                }
            },
            stopTyping: { running.withLockedValue { $0 = false } })
        for client in all { await client.socket.withLockedValue { $0 }?.close() }
        return Result(window: window, joined: joined)
    }

    /// The steady window of a bare kind of client, measured the same way for each: typing starts
    /// with the CPU sampler, the window opens 2 s later (as the virtual clients' steady window
    /// does) and lasts `seconds`; typing stops 300 ms after it closes.
    package static func measureSteadyWindow(
        seconds: Int, frames: @escaping @Sendable () -> Int, acks: @escaping @Sendable () -> Int,
        startTyping: () -> Void, stopTyping: () -> Void
    ) async throws -> RunnerCPUSampler.Window {
        let start = ContinuousClock.now
        let sinceStart: @Sendable () -> Int = { Int((ContinuousClock.now - start).seconds * 1000) }
        let sampler = RunnerCPUSampler(nowMs: sinceStart, frames: frames)
        startTyping()
        try await Task.sleep(for: .seconds(2))
        let begin = (ms: sinceStart(), acks: acks())
        try await Task.sleep(for: .seconds(seconds))
        let endMs = sinceStart(), acksAtEnd = acks()
        try await Task.sleep(for: .milliseconds(300))
        stopTyping()
        sampler.stop()
        guard let window = sampler.window(fromMs: begin.ms, toMs: endMs, ops: acksAtEnd - begin.acks) else {
            throw BenchError("bench: the bare clients' CPU samples do not cover their window")
        }
        return window
    }

    private static func schedule(
        _ client: Client, afterMs: Int64, thinkMs: Int, seed: UInt64, running: NIOLockedValueBox<Bool>
    ) {
        MultiThreadedEventLoopGroup.singleton.next().scheduleTask(in: .milliseconds(afterMs)) {
            guard running.withLockedValue({ $0 }) else { return }
            client.type()
            let (think, next) = BareNoteTyping.think(seed, thinkMs: thinkMs)
            schedule(client, afterMs: think, thinkMs: thinkMs, seed: next, running: running)
        }
    }
}
