import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import WhaleLoad

/// The yardstick of the runner's own cost (`bench run`): bare ``LeanSocket`` clients that send
/// and receive the frames the virtual clients do, on the same schedule, through the same server,
/// with none of the rest: no OT, no history, no metrics, no JSON decoding. Each client knows its
/// note's revision and length only from counting the `docChangeReturnOps` frames it sees (every
/// op inserts one character at the note's end), types its next character after a uniform think
/// time, and like an ot.js client keeps one op in flight (an op due meanwhile waits for the ack).
enum BareNoteLoad {
    /// One bare client. Its state is touched by its socket's event loop and its timer, under its lock.
    final class Client: Sendable {
        struct State {
            var socket: LeanSocket?
            var revision = 0
            var length = 0
            var joined = false
            var seq = 0
            var outstanding: [UInt8]?
            var due = false
        }
        let index: Int
        let account: String
        let state = NIOLockedValueBox(State())
        let frames: NIOLockedValueBox<Int>
        let acks: NIOLockedValueBox<Int>

        init(index: Int, account: String, frames: NIOLockedValueBox<Int>, acks: NIOLockedValueBox<Int>) {
            self.index = index
            self.account = account
            self.frames = frames
            self.acks = acks
        }

        func receive(_ bytes: [UInt8]) {
            frames.withLockedValue { $0 += 1 }
            let next: String? = state.withLockedValue { s in
                if !s.joined, bytes.contains(subsequence: Self.joinAnswer) {
                    // `resourceConnectionConf`: the note's revision, and its text's length.
                    s.revision = Self.integer(after: Self.revisionKey, in: bytes) ?? 0
                    s.length = Self.integer(after: Self.lengthKey, in: bytes) ?? 0
                    s.joined = true
                    return s.due ? Self.op(&s, client: index, account: account) : nil
                }
                guard bytes.contains(subsequence: Self.opFrame) else { return nil }
                s.revision += 1
                s.length += 1
                if let mine = s.outstanding, bytes.contains(subsequence: mine) {
                    s.outstanding = nil
                    acks.withLockedValue { $0 += 1 }
                    if s.due { return Self.op(&s, client: index, account: account) }
                }
                return nil
            }
            if let next { send(next) }
        }

        /// The user's think time is over: type a character now, or as soon as the last one is acknowledged.
        func type() {
            let frame: String? = state.withLockedValue { s in
                guard s.joined, s.outstanding == nil else { s.due = true; return nil }
                return Self.op(&s, client: index, account: account)
            }
            if let frame { send(frame) }
        }

        private func send(_ frame: String) {
            frames.withLockedValue { $0 += 1 }
            state.withLockedValue { $0.socket }?.send(frame)
        }

        private static func op(_ s: inout State, client: Int, account: String) -> String {
            s.seq += 1
            s.due = false
            let messageId = "b\(client)m\(s.seq)"
            s.outstanding = Array("\"messageId\":\"\(messageId)\"".utf8)
            let (n, text) = s.length > 0 ? ("[\(s.length),0]", #"["","x"]"#) : ("[0]", #"["x"]"#)
            return #"{"messageId":"\#(messageId)","type":"docChange","data":{"resourceId":"\#(account)","rev":\#(s.revision),"n":\#(n),"s":\#(text),"opId":"b\#(client).\#(s.seq)"}}"#
        }

        static let joinAnswer = Array("\"resourceConnectionConf\"".utf8)
        static let opFrame = Array("\"docChangeReturnOps\"".utf8)
        static let revisionKey = Array("\"revision\":".utf8)
        static let lengthKey = Array("\"initialState\":\"".utf8)

        /// The integer after `key` (or, for the initial state, the length of the string there: the
        /// bench's notes hold only the ASCII characters these clients typed).
        static func integer(after key: [UInt8], in bytes: [UInt8]) -> Int? {
            guard let range = bytes.firstRange(of: key) else { return nil }
            var i = range.upperBound
            if key == lengthKey {
                let start = i
                while i < bytes.count, bytes[i] != UInt8(ascii: "\"") { i += 1 }
                return i - start
            }
            var value = 0
            while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { value = value * 10 + Int(bytes[i] - 48); i += 1 }
            return value
        }
    }

    /// What one bare run measured over its steady window.
    struct Result {
        var window: RunnerCPUSampler.Window
        var joined: Int
    }

    /// `clients` bare clients, `clients / noteSize` notes, each typing every `thinkMs` ± 10% for
    /// `seconds` after all have joined; the window starts 2 s in, as the virtual clients' does.
    static func run(url: String, token: String, accounts: [String], clients: Int, noteSize: Int, thinkMs: Int, seconds: Int) async throws -> Result {
        let frames = NIOLockedValueBox(0), acks = NIOLockedValueBox(0)
        let all = (0..<clients).map { Client(index: $0, account: accounts[($0 / noteSize) % accounts.count], frames: frames, acks: acks) }
        var joined = 0
        for batch in stride(from: 0, to: clients, by: 200) {
            let sockets = all[batch..<min(clients, batch + 200)].map { client -> LeanSocket in
                let socket = LeanSocket(url: url + "?protocol=2&clientId=bare\(client.index)", headers: [("ObjectId", client.account), ("Authorization", token)],
                                        onBytes: { [weak client] bytes in client?.receive(bytes) })
                client.state.withLockedValue { $0.socket = socket }
                return socket
            }
            for (socket, client) in zip(sockets, all[batch...]) where await socket.connected(timeout: .seconds(10)) {
                frames.withLockedValue { $0 += 1 }
                socket.send(#"{"messageId":"join\#(client.index)","type":"resourceConnection","data":{"resourceId":"\#(client.account)"}}"#)
            }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            joined = all.filter { $0.state.withLockedValue { $0.joined } }.count
            if joined == clients { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let start = ContinuousClock.now
        let sinceStart: @Sendable () -> Int = { Int((ContinuousClock.now - start).seconds * 1000) }
        let sampler = RunnerCPUSampler(nowMs: sinceStart, frames: { frames.withLockedValue { $0 } })
        // Each client's own timer on an event loop, with a seeded jitter (the virtual users' think time).
        let running = NIOLockedValueBox(true)
        var jitter = UInt64(0x9E37_79B9_7F4A_7C15)
        for client in all {
            jitter = jitter &* 6364136223846793005 &+ 1442695040888963407
            let first = Int64(jitter >> 33) % Int64(thinkMs)
            schedule(client, afterMs: first, thinkMs: thinkMs, seed: jitter, running: running)
        }
        let acksAtStart = NIOLockedValueBox<(ms: Int, acks: Int)?>(nil)
        try await Task.sleep(for: .seconds(2))
        acksAtStart.withLockedValue { $0 = (sinceStart(), acks.withLockedValue { $0 }) }
        try await Task.sleep(for: .seconds(seconds))
        let endMs = sinceStart(), acksAtEnd = acks.withLockedValue { $0 }
        try await Task.sleep(for: .milliseconds(300))
        running.withLockedValue { $0 = false }
        sampler.stop()
        let begin = acksAtStart.withLockedValue { $0 }!
        let window = sampler.window(fromMs: begin.ms, toMs: endMs, ops: acksAtEnd - begin.acks)
        for client in all { await client.state.withLockedValue { $0.socket }?.close() }
        guard let window else { throw BadInput("bench: the bare clients' CPU samples do not cover their window") }
        return Result(window: window, joined: joined)
    }

    private static func schedule(_ client: Client, afterMs: Int64, thinkMs: Int, seed: UInt64, running: NIOLockedValueBox<Bool>) {
        MultiThreadedEventLoopGroup.singleton.next().scheduleTask(in: .milliseconds(afterMs)) {
            guard running.withLockedValue({ $0 }) else { return }
            client.type()
            let next = seed &* 6364136223846793005 &+ 1442695040888963407
            let think = Int64(thinkMs) * 9 / 10 + Int64(next >> 33) % Int64(max(1, thinkMs / 5))
            schedule(client, afterMs: think, thinkMs: thinkMs, seed: next, running: running)
        }
    }
}

extension Array where Element == UInt8 {
    func contains(subsequence needle: [UInt8]) -> Bool { firstRange(of: needle) != nil }
}
