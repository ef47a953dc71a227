import Foundation
import NIOConcurrencyHelpers
import WhaleLoad
import WhaleOT
import WhaleProtocol

/// The closed-loop socket loads of `whalesim bench server`: each client sends its next message
/// as soon as its previous one came back, so the figure is the round-trip rate the server (and
/// the box) sustains.
package enum SocketLoad {
    /// A counter shared by many sockets' callbacks.
    package final class Counter: Sendable {
        private let value = NIOLockedValueBox(0)
        private let running = NIOLockedValueBox(true)
        package func add(_ n: Int = 1) { value.withLockedValue { $0 += n } }
        package var count: Int { value.withLockedValue { $0 } }
        package var isRunning: Bool { running.withLockedValue { $0 } }
        package func stop() { running.withLockedValue { $0 = false } }
    }

    /// Round trips a second against the raw echo server: `clients` sockets, each sending a
    /// docChange-sized frame and waiting for it to come back.
    package static func rawEcho(url: String, clients: Int, seconds: Double) async throws -> Double {
        let counter = Counter()
        let frame =
            #"{"messageId":"m","type":"docChange","data":{"resourceId":"acct-0001","rev":12,"n":[40,0,3],"s":["","x",""],"opId":"c1:1"}}"#
        let sockets = try await openAll(clients) { index in
            let box = NIOLockedValueBox<LiveSocket?>(nil)
            let socket = LiveSocket(url: url, headers: [("ObjectId", "echo-\(index)")]) { _ in
                counter.add()
                if counter.isRunning { box.withLockedValue { $0 }?.send(frame) }
            }
            box.withLockedValue { $0 = socket }
            return socket
        }
        let rate = try await measure(counter, seconds: seconds) { for socket in sockets { socket.send(frame) } }
        await closeAll(sockets)
        return rate
    }

    /// docChange→ack round trips a second against the reference server: one client per note,
    /// each sending an insert at the end of its note as soon as the previous one is acknowledged.
    package static func serverAcks(url: String, token: String, accounts: [String], seconds: Double) async throws
        -> Double
    {
        let counter = Counter()
        let clients = try await openAll(accounts.count) { index -> LiveSocket in
            let account = accounts[index]
            let state = NIOLockedValueBox((rev: 0, length: 0, seq: 0))
            let box = NIOLockedValueBox<LiveSocket?>(nil)
            let next: @Sendable () -> Void = {
                let (rev, length, seq) = state.withLockedValue { s -> (Int, Int, Int) in
                    s.seq += 1; return (s.rev, s.length, s.seq)
                }
                let n = length > 0 ? "[\(length),0]" : "[0]"
                let s = length > 0 ? #"["","x"]"# : #"["x"]"#
                box.withLockedValue { $0 }?.send(
                    #"{"messageId":"m\#(seq)","type":"docChange","data":{"resourceId":"\#(account)","rev":\#(rev),"n":\#(n),"s":\#(s),"opId":"b\#(index):\#(seq)"}}"#
                )
            }
            let socket = LiveSocket(
                url: url + "?protocol=2", headers: [("ObjectId", account), ("Authorization", token)]
            ) { text in
                guard let envelope = try? WireCodec.decodeServer(Array(text.utf8)) else { return }
                switch envelope.message {
                case .resourceConnectionConf(let conf):
                    state.withLockedValue {
                        $0.rev = conf.revision; $0.length = conf.initialState?.unicodeScalars.count ?? 0
                    }
                    next()
                case .docChangeReturnOps:
                    state.withLockedValue {
                        $0.rev += 1; $0.length += 1
                    }
                    counter.add()
                    if counter.isRunning { next() }
                default: break
                }
            }
            box.withLockedValue { $0 = socket }
            return socket
        }
        let rate = try await measure(counter, seconds: seconds) {
            for (index, socket) in clients.enumerated() {
                socket.send(
                    #"{"messageId":"join","type":"resourceConnection","data":{"resourceId":"\#(accounts[index])"}}"#)
            }
        }
        await closeAll(clients)
        return rate
    }

    /// Frames delivered to the other members a second, raw: `clients` sockets in one group,
    /// each sending its next frame when its own came back.
    package static func rawBroadcast(url: String, clients: Int, seconds: Double) async throws -> Double {
        let delivered = Counter()
        let sockets = try await openAll(clients) { index in
            let box = NIOLockedValueBox<LiveSocket?>(nil)
            let mine = "\"from\":\(index),"
            let frame =
                #"{"messageId":"m","type":"docChange",\#(mine)"data":{"resourceId":"acct-0001","rev":12,"n":[40,0,3],"s":["","x",""]}}"#
            let socket = LiveSocket(url: url, headers: [("ObjectId", "room")]) { text in
                if text.contains(mine) {
                    if delivered.isRunning { box.withLockedValue { $0 }?.send(frame) }
                } else {
                    delivered.add()
                }
            }
            box.withLockedValue { $0 = socket }
            return socket
        }
        try await Task.sleep(for: .milliseconds(200))
        let rate = try await measure(delivered, seconds: seconds) {
            for (index, socket) in sockets.enumerated() {
                socket.send(
                    #"{"messageId":"m","type":"docChange","from":\#(index),"data":{"resourceId":"acct-0001","rev":12,"n":[40,0,3],"s":["","x",""]}}"#
                )
            }
        }
        await closeAll(sockets)
        return rate
    }

    /// Remote ops applied a second by `clients` virtual clients (``ClientSession``) in one note,
    /// each typing its next character as soon as its previous edit was acknowledged. With
    /// `cursors`, each client shares its cursor: the broadcast of each edit carries it (larger
    /// frames, not more of them), plus a `cursorUpdate` on join.
    package static func serverBroadcast(
        url: String, token: String, userId: String, account: String, clients: Int, seconds: Double,
        cursors: Bool
    ) async throws -> Double {
        let remote = Counter()
        let boxes = (0..<clients).map { _ in NIOLockedValueBox<LiveNoteClient?>(nil) }
        var all: [LiveNoteClient] = []
        for index in 0..<clients {
            let box = boxes[index]
            let client = LiveNoteClient(
                url: url, token: token, clientId: ClientID("bench-\(index)"), userId: userId, resourceId: account,
                sharesCursor: cursors
            ) { observation in
                switch observation {
                case .remoteApplied: remote.add()
                case .acknowledged:
                    if remote.isRunning, let client = box.withLockedValue({ $0 }),
                        client.state.syncState == .synchronized
                    {
                        client.edit(position: index % 7, deleting: 0, inserting: "y")
                    }
                default: break
                }
            }
            box.withLockedValue { $0 = client }
            try await client.join()
            all.append(client)
        }
        let rate = try await measure(remote, seconds: seconds) {
            for (index, client) in all.enumerated() { client.edit(position: index % 7, deleting: 0, inserting: "y") }
        }
        for client in all { await client.disconnect() }
        return rate
    }

    /// Starts a closed loop (`kickOff` sends each client's first message), lets it run for
    /// `seconds`, stops it and returns what `counter` counted per second meanwhile.
    package static func measure(_ counter: Counter, seconds: Double, kickOff: () -> Void) async throws -> Double {
        let start = ContinuousClock.now
        let before = counter.count
        kickOff()
        try await Task.sleep(for: .seconds(seconds))
        let done = counter.count - before
        let elapsed = ContinuousClock.now - start
        counter.stop()
        return Double(done) / elapsed.seconds
    }

    /// Opens `count` sockets, 200 at a time, and waits until every one is open.
    package static func openAll(_ count: Int, _ make: (Int) -> LiveSocket) async throws -> [LiveSocket] {
        var sockets: [LiveSocket] = []
        sockets.reserveCapacity(count)
        var index = 0
        while index < count {
            let batch = (index..<min(count, index + 200)).map(make)
            for socket in batch where !(await socket.connected()) {
                throw BenchError(
                    "socket \(sockets.count) did not open: \(socket.ending?.error ?? "closed \(socket.ending?.closeCode ?? -1)")"
                )
            }
            sockets += batch
            index += batch.count
        }
        return sockets
    }

    package static func closeAll(_ sockets: [LiveSocket]) async {
        await withTaskGroup(of: Void.self) { group in
            for socket in sockets { group.addTask { await socket.close() } }
        }
    }
}

extension Duration {
    package var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
