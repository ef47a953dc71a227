import Foundation
import NIOConcurrencyHelpers
import WhaleLoad

#if canImport(Glibc)
    /// The floor under the runner's cost (`bench run --floor`): the bare clients' frames and schedule
    /// (``BareNoteTyping``) on ``EpollClientLoop``s, plain system calls with no NIO channel and no
    /// Swift task in the way. What they spend is the kernel's work per frame (each read, the ACK it
    /// sends, epoll) and little else, so it is the least any client of this traffic can use on this
    /// machine; the full and the bare client are read against it.
    package enum FloorNoteLoad {
        /// The clients of one loop, touched only on its thread; the counters are read by the sampler.
        package final class Clients<Typing: FloorTyping>: EpollClientHandler, @unchecked Sendable {
            package let loops: Int
            package let thinkMs: Int
            package var typing: [Typing] = []
            package var seeds: [UInt64] = []
            package var sockets: [EpollClientSocket] = []
            package var running = true
            package struct Counts { var frames = 0, acks = 0, opened = 0, joined = 0, closed = 0, firstClose: String? }
            package let counts = NIOLockedValueBox(Counts())

            package init(loops: Int, thinkMs: Int) {
                self.loops = loops
                self.thinkMs = thinkMs
            }

            package func opened(_ socket: EpollClientSocket) {
                counts.withLockedValue { $0.opened += 1 }
                for frame in typing[socket.index / loops].floorOpened() { send(socket, frame) }
            }

            package func received(_ socket: EpollClientSocket, _ payload: UnsafeRawBufferPointer) {
                let l = socket.index / loops
                let wasJoined = typing[l].joined
                let (next, acked) = typing[l].floorReceive(payload)
                let joined = !wasJoined && typing[l].joined
                counts.withLockedValue { c in
                    c.frames += 1
                    if acked { c.acks += 1 }
                    if joined { c.joined += 1 }
                }
                for frame in next { send(socket, frame) }
            }

            package func timerFired(_ socket: EpollClientSocket) {
                guard running else { return }
                let l = socket.index / loops
                for frame in typing[l].floorType() { send(socket, frame) }
                let (ms, seed) = BareNoteTyping.think(seeds[l], thinkMs: thinkMs)
                seeds[l] = seed
                socket.schedule(afterMs: Int(ms))
            }

            package func closed(_ socket: EpollClientSocket, reason: String) {
                counts.withLockedValue { c in
                    c.closed += 1
                    if c.firstClose == nil { c.firstClose = "client \(socket.index): \(reason)" }
                }
            }

            private func send(_ socket: EpollClientSocket, _ frame: String) {
                counts.withLockedValue { $0.frames += 1 }
                socket.send(frame)
            }
        }

        /// `clients` clients on `loops` threads in `clients / noteSize` notes, typing every `thinkMs`
        /// ± 10% for `seconds` once all have joined; measured as ``BareNoteLoad/run`` measures.
        /// `session`: the clients do the virtual client's own work (``FloorSessionTyping``) instead of the bare clients' searches.
        package static func run(
            url: String, token: String, accounts: [String], clients: Int, noteSize: Int, thinkMs: Int, seconds: Int,
            loops: Int, session: Bool = false
        ) async throws -> BareNoteLoad.Result {
            if session {
                return try await run(
                    FloorSessionTyping.self, url: url, token: token, accounts: accounts, clients: clients,
                    noteSize: noteSize, thinkMs: thinkMs, seconds: seconds, loops: loops)
            }
            return try await run(
                BareNoteTyping.self, url: url, token: token, accounts: accounts, clients: clients, noteSize: noteSize,
                thinkMs: thinkMs, seconds: seconds, loops: loops)
        }

        private static func run<Typing: FloorTyping>(
            _: Typing.Type, url: String, token: String, accounts: [String], clients: Int, noteSize: Int, thinkMs: Int,
            seconds: Int, loops: Int
        ) async throws -> BareNoteLoad.Result {
            guard let u = URL(string: url), let host = u.host, let port = u.port, u.scheme == "ws" else {
                throw BenchError("bench --floor: not a ws:// URL with a port: \(url)")
            }
            let groups = (0..<loops).map { _ in Clients<Typing>(loops: loops, thinkMs: thinkMs) }
            let threads = groups.enumerated().map { k, g in EpollClientLoop(name: "whalesim-floor-\(k)", handler: g) }
            defer { for t in threads { t.stop() } }
            for i in 0..<clients {
                groups[i % loops].typing.append(Typing(index: i, account: accounts[(i / noteSize) % accounts.count]))
                groups[i % loops].seeds.append(0)
            }
            @Sendable func total(_ pick: (Clients<Typing>.Counts) -> Int) -> Int {
                groups.reduce(0) { sum, g in sum + g.counts.withLockedValue { pick($0) } }
            }
            // In batches of 200, as the bare clients connect: no SYN flood of the server's backlog.
            for batch in stride(from: 0, to: clients, by: 200) {
                for i in batch..<min(clients, batch + 200) {
                    let socket = threads[i % loops].open(
                        index: i, host: host, port: port, path: u.path + "?protocol=2&clientId=floor\(i)",
                        headers: [("ObjectId", accounts[(i / noteSize) % accounts.count]), ("Authorization", token)])
                    let g = groups[i % loops]
                    threads[i % loops].execute { g.sockets.append(socket) }
                }
                let deadline = ContinuousClock.now + .seconds(10)
                while total({ $0.opened + $0.closed }) < min(clients, batch + 200), ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            let deadline = ContinuousClock.now + .seconds(30)
            while total(\.joined) < clients, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            let joined = total(\.joined)
            if let reason = groups.lazy.compactMap({ $0.counts.withLockedValue { $0.firstClose } }).first {
                BenchError.report(
                    "bench --floor: \(total(\.closed)) of \(clients) sockets closed; the first: \(reason)")
            }

            // The bare clients' seeded schedule, drawn in client order, each loop taking its own clients'.
            let firsts = BareNoteTyping.firstKeystrokes(clients: clients, thinkMs: thinkMs)
            let window = try await BareNoteLoad.measureSteadyWindow(
                seconds: seconds, frames: { total { $0.frames } }, acks: { total { $0.acks } },
                startTyping: {
                    for (k, g) in groups.enumerated() {
                        threads[k].execute {
                            for socket in g.sockets {
                                let first = firsts[socket.index]
                                g.seeds[socket.index / loops] = first.seed
                                socket.schedule(afterMs: Int(first.ms))
                            }
                        }
                    }
                },
                stopTyping: { for (k, g) in groups.enumerated() { threads[k].execute { g.running = false } } })
            return BareNoteLoad.Result(window: window, joined: joined)
        }
    }
#endif
