import Foundation
#if canImport(Glibc)
    import NIOConcurrencyHelpers

    /// A client websocket on an ``EpollClientLoop``, with ``LeanSocket``'s API (``NoteSocket``): the
    /// load runner's note sockets when `live.runner-loop: epoll`. Messages reach `onBuffer` on the
    /// loop's thread; `send` from the loop's thread writes at once, from any other thread it goes
    /// through the loop's queue (and then so do the loop's own sends, until those queued have gone,
    /// so frames leave in the order `send` was called).
    ///
    /// ```swift
    /// let loop = EpollClientLoop.shared(1)[0]
    /// let socket = EpollWebSocket(url: "ws://127.0.0.1:8080/socket", headers: [("ObjectId", "acct-1")], loop: loop, onBytes: { bytes in
    ///     print(String(decoding: bytes, as: UTF8.self))
    /// })
    /// if await socket.connected(timeout: .seconds(5)) { socket.send(#"{"type":"ping"}"#, binary: false) }
    /// await socket.close()
    /// ```
    public final class EpollWebSocket: NoteSocket, EpollClientHandler, @unchecked Sendable {
        private struct State {
            var open = false
            var ending: LiveSocket.Ending?
            var ended = false
            var waiters: [CheckedContinuation<Bool, Never>] = []
            var endWaiters: [CheckedContinuation<Void, Never>] = []
            var endCallbacks: [@Sendable () -> Void] = []
            var pending: [([UInt8], Bool)] = []
            var pongs = 0
            /// Frames queued from other threads that the loop has not written yet.
            var queuedSends = 0
        }

        private let state = NIOLockedValueBox(State())
        private let loop: EpollClientLoop
        /// On the loop's thread only (after `init`). Let go of when the socket ends: the handler may
        /// hold the socket's owner, which holds the socket (a note session holds itself strongly there).
        private var onBuffer: (@Sendable (UnsafeRawBufferPointer) -> Void)?
        /// Set once in `init`, then touched only on the loop's thread.
        private var socket: EpollClientSocket?

        public convenience init(
            url: String, headers: [(String, String)] = [], maxFrameSize: Int = 1 << 20, loop: EpollClientLoop,
            onBytes: @escaping @Sendable ([UInt8]) -> Void
        ) {
            self.init(
                url: url, headers: headers, maxFrameSize: maxFrameSize, loop: loop, onBuffer: { onBytes(Array($0)) })
        }

        /// Hands each message over where it lies in the loop's buffers: valid only during the call.
        public init(
            url: String, headers: [(String, String)] = [], maxFrameSize: Int = 1 << 20, loop: EpollClientLoop,
            onBuffer: @escaping @Sendable (UnsafeRawBufferPointer) -> Void
        ) {
            self.loop = loop
            self.onBuffer = onBuffer
            guard let u = URL(string: url), let host = u.host, u.scheme == "ws" else {
                state.withLockedValue {
                    $0.ending = LiveSocket.Ending(closeCode: nil, reason: nil, error: "not a ws:// URL: \(url)");
                    $0.ended = true
                }
                return
            }
            var path = u.path.isEmpty ? "/" : u.path
            if let q = u.query { path += "?" + q }
            socket = loop.open(
                index: 0, host: host, port: u.port ?? 80, path: path, headers: headers, handler: self,
                maxFrameSize: maxFrameSize)
        }

        // MARK: the loop's calls (its thread)

        public func opened(_ socket: EpollClientSocket) {
            let (waiters, pending) = state.withLockedValue {
                s -> ([CheckedContinuation<Bool, Never>], [([UInt8], Bool)]) in
                s.open = true
                defer { s.waiters = []; s.pending = [] }
                return (s.waiters, s.pending)
            }
            for (frame, binary) in pending {
                var bytes = frame
                socket.send(bytes: &bytes, binary: binary)
            }
            for w in waiters { w.resume(returning: true) }
        }

        public func received(_ socket: EpollClientSocket, _ payload: UnsafeRawBufferPointer) { onBuffer?(payload) }

        public func ponged(_ socket: EpollClientSocket) { state.withLockedValue { $0.pongs += 1 } }

        public func closing(_ socket: EpollClientSocket, code: Int?, reason: String?) {
            state.withLockedValue {
                if $0.ending == nil { $0.ending = LiveSocket.Ending(closeCode: code, reason: reason, error: nil) }
            }
        }

        public func closed(_ socket: EpollClientSocket, reason: String) {
            finish(LiveSocket.Ending(closeCode: nil, reason: nil, error: reason))
        }

        private func finish(_ ending: LiveSocket.Ending) {
            let (waiters, endWaiters, callbacks) = state.withLockedValue { s in
                if s.ending == nil { s.ending = ending }
                s.open = false
                s.ended = true
                s.pending = []
                defer { s.waiters = []; s.endWaiters = []; s.endCallbacks = [] }
                return (s.waiters, s.endWaiters, s.endCallbacks)
            }
            onBuffer = nil
            for w in waiters { w.resume(returning: false) }
            for w in endWaiters { w.resume() }
            // Never inside the call that ended the socket: a send that failed holds its client's lock.
            if !callbacks.isEmpty { loop.execute { for callback in callbacks { callback() } } }
        }

        // MARK: NoteSocket

        public func connected(timeout: Duration) async -> Bool {
            let (seconds, attoseconds) = timeout.components
            let ns = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
            loop.schedule(atUptimeNs: EpollClientLoop.nowNs() + ns) { [self] in
                let late = state.withLockedValue { s -> Bool in
                    guard !s.open, !s.ended else { return false }
                    if s.ending == nil {
                        s.ending = LiveSocket.Ending(closeCode: nil, reason: nil, error: "no upgrade within \(timeout)")
                    }
                    return true
                }
                if late { socket?.close(reason: "no upgrade within \(timeout)") }
            }
            return await withCheckedContinuation { continuation in
                let ready = state.withLockedValue { s -> Bool? in
                    if s.open { return true }
                    if s.ended || s.ending != nil { return false }
                    s.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        public func send(_ text: String, binary: Bool) { send(bytes: Array(text.utf8), binary: binary) }

        public func send(bytes: [UInt8], binary: Bool) { write(bytes, opcode: binary ? 0x2 : 0x1) }

        public func ping() { write([], opcode: 0x9) }

        private func write(_ payload: [UInt8], opcode: UInt8) {
            enum Way { case now, queued, none }
            let inLoop = loop.inLoop
            let way = state.withLockedValue { s -> Way in
                if s.open {
                    if inLoop, s.queuedSends == 0 { return .now }
                    s.queuedSends += 1
                    return .queued
                }
                if !s.ended, s.ending == nil, opcode != 0x9 { s.pending.append((payload, opcode == 0x2)) }
                return .none
            }
            switch way {
            case .now:
                send(payload, opcode: opcode)
            case .queued:
                loop.execute { [self] in
                    state.withLockedValue { $0.queuedSends -= 1 }
                    send(payload, opcode: opcode)
                }
            case .none:
                break
            }
        }

        /// On the loop's thread.
        private func send(_ payload: [UInt8], opcode: UInt8) {
            guard let socket, socket.isOpen else { return }
            var bytes = payload
            if opcode == 0x9 { socket.ping() } else { socket.send(bytes: &bytes, binary: opcode == 0x2) }
        }

        public var pongsReceived: Int { state.withLockedValue { $0.pongs } }

        public var ending: LiveSocket.Ending? { state.withLockedValue { $0.open ? nil : $0.ending } }

        public func onEnded(_ then: @escaping @Sendable () -> Void) {
            let done = state.withLockedValue { s -> Bool in
                if s.ended { return true }
                s.endCallbacks.append(then)
                return false
            }
            if done { loop.execute(then) }
        }

        /// Waits until the socket has ended, whoever ended it.
        public func waitEnded() async {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let done = state.withLockedValue { s -> Bool in
                    if s.ended { return true }
                    s.endWaiters.append(c)
                    return false
                }
                if done { c.resume() }
            }
        }

        /// Sends a close frame (1000) and waits for the socket to end (the server's answer, or 2 s).
        public func close() async {
            loop.execute { [self] in
                guard let socket else { return }
                if socket.isOpen {
                    socket.sendClose(code: 1000)
                } else {
                    socket.close(reason: "closed before the upgrade")
                }
            }
            if socket == nil { return }
            await waitEnded()
        }
    }
#endif
