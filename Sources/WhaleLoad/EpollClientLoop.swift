import Foundation
#if canImport(Glibc)
import CEpoll
import Glibc

/// What an ``EpollClientLoop`` tells the owner of its sockets, always on the loop's own thread.
public protocol EpollClientHandler: AnyObject {
    /// The websocket upgrade was answered `101`: the socket can send.
    func opened(_ socket: EpollClientSocket)
    /// One whole text or binary message, in the loop's read buffer (valid only during the call).
    func received(_ socket: EpollClientSocket, _ payload: UnsafeRawBufferPointer)
    /// The timer set with ``EpollClientSocket/schedule(afterMs:)`` is due.
    func timerFired(_ socket: EpollClientSocket)
    /// The socket is closed: refused, reset, or a bad answer (`reason` says which).
    func closed(_ socket: EpollClientSocket, reason: String)
}

/// One websocket of an ``EpollClientLoop``. Touch it only on its loop's thread (from the handler's
/// calls, or in ``EpollClientLoop/execute(_:)``).
public final class EpollClientSocket {
    public let index: Int
    fileprivate let loop: EpollClientLoop
    fileprivate var fd: Int32 = -1
    fileprivate var upgraded = false
    fileprivate var request: [UInt8]
    fileprivate var input: [UInt8] = []
    fileprivate var output: [UInt8] = []
    fileprivate var timerGeneration = 0

    fileprivate init(index: Int, loop: EpollClientLoop, request: [UInt8]) {
        self.index = index
        self.loop = loop
        self.request = request
    }

    /// Sends `text` as one masked text frame.
    public func send(_ text: String) {
        var utf8 = Array(text.utf8)
        loop.sendFrame(self, payload: &utf8)
    }

    /// Calls the handler's `timerFired` after `ms` (one timer a socket: a new one replaces it).
    public func schedule(afterMs ms: Int) { loop.schedule(self, afterMs: ms) }

    /// Closes the socket (no close frame: a yardstick's end, not a protocol's).
    public func close() { loop.drop(self, reason: "closed by its owner") }
}

/// Websocket clients on plain system calls: one thread, one epoll set, non-blocking sockets,
/// frames parsed where they lie in each socket's read buffer, masked frames written straight
/// from the caller. No NIO channel, pipeline, promise or Swift task on the way.
///
/// Why it exists: `bench run --floor` puts these clients through the same frames as the virtual
/// clients, to show how much of the runner's CPU is the kernel's work per frame (the read, the
/// ACK it sends, epoll) and so what no client built on NIO can go below (docs/decisions.md).
/// It is a yardstick, not a general client: `ws://` only, the upgrade's accept key is not
/// checked, fragmented messages are not joined, and a server's close frame just closes.
/// Its thread runs until ``stop()``, which its owner calls once, before letting it go.
public final class EpollClientLoop: @unchecked Sendable {
    private let epoll: Int32
    private let wake: Int32
    private let handler: any EpollClientHandler
    /// Open sockets by file descriptor (a descriptor is a small number: an array, not a hash).
    private var sockets: [EpollClientSocket?] = []
    private var timers = TimerHeap()
    private var buffer = [UInt8](repeating: 0, count: 65_536)
    private var mask: UInt32 = 0x9E37_79B9
    private let queue = NSLock()
    private var queued: [() -> Void] = []
    private var stopping = false
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    /// Starts the loop's thread; `handler` hears about every socket the loop opens.
    public init(name: String, handler: any EpollClientHandler) {
        self.handler = handler
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wake))
        _ = epoll_ctl(epoll, EPOLL_CTL_ADD, wake, &event)
        let thread = Thread { [unowned self] in self.run() }
        thread.name = name
        self.thread = thread
        thread.start()
    }

    /// Runs `work` on the loop's thread.
    public func execute(_ work: @escaping () -> Void) {
        queue.lock()
        queued.append(work)
        queue.unlock()
        var one: UInt64 = 1
        _ = Glibc.write(wake, &one, 8)
    }

    /// Opens a websocket to `host:port` (an IPv4 address or `localhost`) at `path`, with `headers` on
    /// the upgrade; the handler hears `opened` or `closed`.
    public func open(index: Int, host: String, port: Int, path: String, headers: [(String, String)]) -> EpollClientSocket {
        var key = [UInt8](repeating: 0, count: 16)
        for i in key.indices { mask = mask &* 1_664_525 &+ 1_013_904_223; key[i] = UInt8(truncatingIfNeeded: mask >> 24) }
        var head = "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Key: \(Data(key).base64EncodedString())\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        let socket = EpollClientSocket(index: index, loop: self, request: Array(head.utf8))
        execute { [self] in connect(socket, host: host == "localhost" ? "127.0.0.1" : host, port: port) }
        return socket
    }

    /// Closes every socket and ends the thread.
    public func stop() {
        execute { [self] in
            for case let socket? in sockets { drop(socket, reason: "the loop stopped") }
            stopping = true
        }
        done.wait()
        Glibc.close(epoll)
        Glibc.close(wake)
    }

    private func connect(_ socket: EpollClientSocket, host: String, port: Int) {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { handler.closed(socket, reason: "socket: \(String(cString: strerror(errno)))"); return }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            Glibc.close(fd)
            handler.closed(socket, reason: "not an IPv4 address: \(host)")
            return
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 || errno == EINPROGRESS else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            handler.closed(socket, reason: "connect: \(reason)")
            return
        }
        socket.fd = fd
        if sockets.count <= Int(fd) { sockets += [EpollClientSocket?](repeating: nil, count: Int(fd) + 1 - sockets.count) }
        sockets[Int(fd)] = socket
        socket.output = socket.request
        socket.request = []
        var event = epoll_event(events: EPOLLIN.rawValue | EPOLLOUT.rawValue, data: epoll_data_t(fd: fd))
        _ = epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event)
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            let timeout = timers.next.map { due -> Int32 in
                let now = Self.nowNs()
                return due <= now ? 0 : Int32(min((due - now + 999_999) / 1_000_000, 60_000))
            } ?? -1
            let n = events.withUnsafeMutableBufferPointer { epoll_wait(epoll, $0.baseAddress, 256, timeout) }
            if n > 0 {
                for i in 0..<Int(n) {
                    let fd = events[i].data.fd, flags = events[i].events
                    if fd == wake { drainQueue(); continue }
                    guard Int(fd) < sockets.count, let socket = sockets[Int(fd)] else { continue }
                    if flags & EPOLLOUT.rawValue != 0 { flush(socket) }
                    if flags & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0, socket.fd == fd { readable(socket) }
                }
            }
            let now = Self.nowNs()
            while let (socket, generation) = timers.popDue(now) {
                if socket.fd >= 0, socket.timerGeneration == generation { handler.timerFired(socket) }
            }
            if stopping { done.signal(); return }
        }
    }

    private func drainQueue() {
        var count: UInt64 = 0
        _ = Glibc.read(wake, &count, 8)
        queue.lock()
        let work = queued
        queued = []
        queue.unlock()
        for w in work { w() }
    }

    fileprivate func schedule(_ socket: EpollClientSocket, afterMs ms: Int) {
        socket.timerGeneration &+= 1
        timers.push(due: Self.nowNs() + UInt64(max(0, ms)) * 1_000_000, socket: socket, generation: socket.timerGeneration)
    }

    fileprivate func drop(_ socket: EpollClientSocket, reason: String) {
        guard socket.fd >= 0 else { return }
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, socket.fd, nil)
        sockets[Int(socket.fd)] = nil
        Glibc.close(socket.fd)
        socket.fd = -1
        handler.closed(socket, reason: reason)
    }

    /// Reads what is there (once, as NIO does per readable event, more while the buffer fills)
    /// and hands each whole frame to the handler.
    private func readable(_ socket: EpollClientSocket) {
        while true {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(socket.fd, $0.baseAddress, $0.count) }
            if got == 0 { drop(socket, reason: "the server closed the connection"); return }
            if got < 0 {
                if errno == EAGAIN || errno == EINTR { return }
                drop(socket, reason: "read: \(String(cString: strerror(errno)))")
                return
            }
            if socket.input.isEmpty {
                // The common case: whole frames in this read, parsed in place, nothing copied.
                let used = buffer.withUnsafeBytes { parse(socket, UnsafeRawBufferPointer(rebasing: $0[0..<got])) }
                if socket.fd < 0 { return }
                if used < got { socket.input.append(contentsOf: buffer[used..<got]) }
            } else {
                socket.input.append(contentsOf: buffer[0..<got])
                let used = socket.input.withUnsafeBytes { parse(socket, $0) }
                if socket.fd < 0 { return }
                socket.input.removeFirst(used)
            }
            if got < buffer.count { return }
        }
    }

    /// Handles the upgrade answer, then every whole frame in `bytes`; returns the bytes used.
    private func parse(_ socket: EpollClientSocket, _ bytes: UnsafeRawBufferPointer) -> Int {
        var at = 0
        if !socket.upgraded {
            guard let end = Self.headEnd(bytes) else { return 0 }
            guard bytes.count >= 12, bytes[9] == UInt8(ascii: "1"), bytes[10] == UInt8(ascii: "0"), bytes[11] == UInt8(ascii: "1") else {
                drop(socket, reason: "the upgrade was refused: " + String(decoding: bytes[0..<min(end, 80)], as: UTF8.self))
                return 0
            }
            socket.upgraded = true
            at = end
            handler.opened(socket)
            if socket.fd < 0 { return 0 }
        }
        while bytes.count - at >= 2 {
            let opcode = bytes[at] & 0x0F
            var length = Int(bytes[at + 1] & 0x7F), header = 2
            if length == 126 {
                guard bytes.count - at >= 4 else { break }
                length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
                header = 4
            } else if length == 127 {
                guard bytes.count - at >= 10 else { break }
                length = 0
                for i in 2..<10 { length = length << 8 | Int(bytes[at + i]) }
                header = 10
            }
            guard bytes.count - at - header >= length else { break }
            let payload = UnsafeRawBufferPointer(rebasing: bytes[(at + header)..<(at + header + length)])
            at += header + length
            switch opcode {
            case 0, 1, 2: handler.received(socket, payload)
            case 8: drop(socket, reason: "the server sent a close frame")
            case 9: var echo = Array(payload); sendFrame(socket, payload: &echo, opcode: 0xA)
            default: break
            }
            if socket.fd < 0 { return at }
        }
        return at
    }

    private static func headEnd(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 3..<bytes.count where bytes[i] == 10 && bytes[i - 1] == 13 && bytes[i - 2] == 10 && bytes[i - 3] == 13 { return i + 1 }
        return nil
    }

    fileprivate func sendFrame(_ socket: EpollClientSocket, payload: inout [UInt8], opcode: UInt8 = 0x1) {
        guard socket.fd >= 0 else { return }
        var frame: [UInt8] = [0x80 | opcode]
        frame.reserveCapacity(payload.count + 14)
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count < 65_536 {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        mask = mask &* 1_664_525 &+ 1_013_904_223
        let key = [UInt8(mask >> 24), UInt8((mask >> 16) & 0xFF), UInt8((mask >> 8) & 0xFF), UInt8(mask & 0xFF)]
        frame += key
        for i in payload.indices { payload[i] ^= key[i & 3] }
        frame += payload
        if socket.output.isEmpty {
            let wrote = frame.withUnsafeBytes { Glibc.write(socket.fd, $0.baseAddress, $0.count) }
            if wrote == frame.count { return }
            if wrote < 0, errno != EAGAIN, errno != EINTR { drop(socket, reason: "write: \(String(cString: strerror(errno)))"); return }
            socket.output = Array(frame[max(0, wrote)...])
            var event = epoll_event(events: EPOLLIN.rawValue | EPOLLOUT.rawValue, data: epoll_data_t(fd: socket.fd))
            _ = epoll_ctl(epoll, EPOLL_CTL_MOD, socket.fd, &event)
        } else {
            socket.output += frame
        }
    }

    /// Writes what is waiting; once all of it is out, stops asking for writability.
    private func flush(_ socket: EpollClientSocket) {
        if !socket.output.isEmpty {
            let wrote = socket.output.withUnsafeBytes { Glibc.write(socket.fd, $0.baseAddress, $0.count) }
            if wrote < 0 {
                if errno == EAGAIN || errno == EINTR { return }
                drop(socket, reason: socket.upgraded ? "write: \(String(cString: strerror(errno)))" : "connect: \(String(cString: strerror(errno)))")
                return
            }
            socket.output.removeFirst(wrote)
        }
        if socket.output.isEmpty {
            var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: socket.fd))
            _ = epoll_ctl(epoll, EPOLL_CTL_MOD, socket.fd, &event)
        }
    }

    private static func nowNs() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    /// The loop's timers: a binary min-heap of (due, socket, generation); a socket's later
    /// `schedule` bumps its generation, so an older entry is skipped when it comes due.
    private struct TimerHeap {
        private var items: [(due: UInt64, socket: EpollClientSocket, generation: Int)] = []
        var next: UInt64? { items.first?.due }

        mutating func push(due: UInt64, socket: EpollClientSocket, generation: Int) {
            items.append((due, socket, generation))
            var i = items.count - 1
            while i > 0, items[(i - 1) / 2].due > items[i].due { items.swapAt(i, (i - 1) / 2); i = (i - 1) / 2 }
        }

        mutating func popDue(_ now: UInt64) -> (EpollClientSocket, Int)? {
            guard let top = items.first, top.due <= now else { return nil }
            let last = items.removeLast()
            if !items.isEmpty {
                items[0] = last
                var i = 0
                while true {
                    let l = 2 * i + 1, r = l + 1
                    var m = i
                    if l < items.count, items[l].due < items[m].due { m = l }
                    if r < items.count, items[r].due < items[m].due { m = r }
                    if m == i { break }
                    items.swapAt(i, m)
                    i = m
                }
            }
            return (top.socket, top.generation)
        }
    }
}
#endif
