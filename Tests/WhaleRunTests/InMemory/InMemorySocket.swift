import Foundation
import NIOConcurrencyHelpers
import WhaleLoad
@testable import WhaleRun

/// A websocket that lives in memory: what it sends goes to its ``InMemoryHub`` (which hands it
/// to a sans-I/O server when pumped), and what the server sends reaches `onBuffer`. It ends when
/// closed, or when the hub cuts it as the network would.
final class InMemorySocket: NoteSocket, @unchecked Sendable {
    /// What the URL and headers say about the connection (as a real server would read them).
    struct Dial: Sendable {
        var url: String
        var headers: [(String, String)]

        /// A query parameter of the URL.
        func parameter(_ name: String) -> String? {
            guard let query = url.split(separator: "?", maxSplits: 1).last else { return nil }
            for pair in query.split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                if kv.count == 2, kv[0] == name { return kv[1] }
            }
            return nil
        }

        func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
    }

    let dial: Dial
    let onBuffer: @Sendable (UnsafeRawBufferPointer) -> Void
    private weak var hub: (any InMemoryHub)?
    private let state = NIOLockedValueBox(State())

    /// `LiveSocket.Ending` has no public initializer: the socket keeps its own reason, and says
    /// nil for ``ending`` (the session then takes it as plainly "ended").
    private struct State {
        var ending: String?
        var onEnded: (@Sendable () -> Void)?
        var pongs = 0
    }

    init(hub: any InMemoryHub, dial: Dial, onBuffer: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        self.hub = hub
        self.dial = dial
        self.onBuffer = onBuffer
    }

    var isEnded: Bool { state.withLockedValue { $0.ending != nil } }

    func connected(timeout: Duration) async -> Bool {
        guard let hub, hub.accept(self) else {
            end("connection refused")
            return false
        }
        return true
    }

    func send(_ text: String, binary: Bool) { send(bytes: Array(text.utf8), binary: binary) }

    func send(bytes: [UInt8], binary: Bool) {
        guard !isEnded else { return }
        hub?.enqueue(bytes, from: self)
    }

    /// A live peer answers at once.
    func ping() { state.withLockedValue { if $0.ending == nil { $0.pongs += 1 } } }
    var pongsReceived: Int { state.withLockedValue { $0.pongs } }
    var ending: LiveSocket.Ending? { nil }
    var endedBecause: String? { state.withLockedValue { $0.ending } }

    func onEnded(_ then: @escaping @Sendable () -> Void) {
        let now = state.withLockedValue { s -> Bool in
            if s.ending != nil { return true }
            s.onEnded = then
            return false
        }
        if now { Task { then() } }
    }

    func close() async { end("closed 1000") }

    /// Ends the socket (once): the hub forgets it and its `onEnded` runs on a task of its own.
    func end(_ ending: String) {
        let then = state.withLockedValue { s -> (@Sendable () -> Void)?? in
            guard s.ending == nil else { return nil }
            s.ending = ending
            defer { s.onEnded = nil }
            return .some(s.onEnded)
        }
        guard let then else { return }
        hub?.ended(self)
        if let then { Task { then() } }
    }
}

/// The server side of ``InMemorySocket``s: accepts a dial, takes frames, forgets an ended socket.
protocol InMemoryHub: AnyObject, Sendable {
    func accept(_ socket: InMemorySocket) -> Bool
    func enqueue(_ bytes: [UInt8], from socket: InMemorySocket)
    func ended(_ socket: InMemorySocket)
}

/// Waits (polling every 2 ms, at most `seconds`) until `condition` holds, calling `step` before each look.
func eventually(_ seconds: Double = 5, step: () -> Void = {}, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        step()
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    step()
    return condition()
}
