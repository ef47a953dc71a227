import Foundation
#if canImport(Glibc)
    import CEpoll
    import Glibc
    import NIOHTTP1
    import NIOWebSocket

    /// One websocket of an ``EpollClientLoop``. Touch it only on its loop's thread (from the handler's
    /// calls, in ``EpollClientLoop/execute(_:)``, or in a task that runs on the loop).
    public final class EpollClientSocket {
        public let index: Int
        let loop: EpollClientLoop
        /// Who hears about it; let go once it has closed (the handler usually holds the socket too).
        var handler: (any EpollClientHandler)?
        var fd: Int32 = -1
        var upgraded = false
        var request: [UInt8]
        /// Makes the request's key and checks the server's `Sec-WebSocket-Accept` against it.
        let handshake: NIOWebSocketClientUpgrader
        var input: [UInt8] = []
        var output: [UInt8] = []
        /// The fragments of a message so far.
        var partial: [UInt8]?
        let maxFrameSize: Int
        var timerGeneration = 0
        /// The client's close frame is sent: the server's answer (or a timer) ends the socket.
        var closeSent = false

        init(
            index: Int, loop: EpollClientLoop, host: String, port: Int, path: String, headers: [(String, String)],
            maxFrameSize: Int
        ) {
            self.index = index
            self.loop = loop
            self.maxFrameSize = maxFrameSize
            handshake = NIOWebSocketClientUpgrader(maxFrameSize: maxFrameSize) { channel, _ in
                channel.eventLoop.makeSucceededVoidFuture()
            }
            var fields = HTTPHeaders()
            handshake.addCustom(upgradeRequestHeaders: &fields)
            let hostField = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            var head =
                "GET \(path) HTTP/1.1\r\nHost: \(hostField):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            for (name, value) in fields { head += "\(name): \(value)\r\n" }
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "\r\n"
            request = Array(head.utf8)
        }

        /// Open: upgraded and not closed.
        public var isOpen: Bool { fd >= 0 && upgraded }

        /// Sends `text` as one masked text frame.
        public func send(_ text: String) {
            var utf8 = Array(text.utf8)
            loop.sendFrame(self, payload: &utf8)
        }

        /// Sends `payload` as one masked text (or binary) frame; the array is masked in place.
        public func send(bytes payload: inout [UInt8], binary: Bool = false) {
            loop.sendFrame(self, payload: &payload, opcode: binary ? 0x2 : 0x1)
        }

        /// Sends a ping (the server must answer with a pong, RFC 6455 §5.5.2).
        public func ping() {
            var none: [UInt8] = []
            loop.sendFrame(self, payload: &none, opcode: 0x9)
        }

        /// Sends a close frame with `code`; the server's answer closes the socket, or, if none comes
        /// within `waitMs`, the loop does.
        public func sendClose(code: UInt16 = 1000, waitMs: Int = 2_000) {
            guard fd >= 0, !closeSent else { return }
            var payload: [UInt8] = [UInt8(code >> 8), UInt8(code & 0xFF)]
            loop.sendFrame(self, payload: &payload, opcode: 0x8)
            closeSent = true
            loop.schedule(atUptimeNs: EpollClientLoop.nowNs() + UInt64(waitMs) * 1_000_000) { [self] in
                loop.drop(self, reason: "closed (no answer to the close frame)")
            }
        }

        /// Calls the handler's `timerFired` after `ms` (one timer a socket: a new one replaces it).
        public func schedule(afterMs ms: Int) {
            timerGeneration &+= 1
            loop.timers.push(
                due: EpollClientLoop.nowNs() + UInt64(max(0, ms)) * 1_000_000, .socket(self, timerGeneration))
        }

        /// Closes the socket at once, no close frame (a yardstick's end, or a dead connection's).
        public func close(reason: String = "closed by its owner") { loop.drop(self, reason: reason) }
    }

    extension EpollClientLoop {
        func connect(_ socket: EpollClientSocket, host: String, port: Int) {
            guard let address = address(of: host, port: port) else {
                fail(socket, reason: "cannot resolve \(host)")
                return
            }
            let family = address.count == MemoryLayout<sockaddr_in6>.size ? AF_INET6 : AF_INET
            let fd = Glibc.socket(
                family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { fail(socket, reason: "socket: \(String(cString: strerror(errno)))"); return }
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let result = address.withUnsafeBytes { raw in
                Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            guard result == 0 || errno == EINPROGRESS else {
                let reason = String(cString: strerror(errno))
                Glibc.close(fd)
                fail(socket, reason: "connect: \(reason)")
                return
            }
            socket.fd = fd
            if sockets.count <= Int(fd) {
                sockets += [EpollClientSocket?](repeating: nil, count: Int(fd) + 1 - sockets.count)
            }
            sockets[Int(fd)] = socket
            socket.output = socket.request
            socket.request = []
            var event = epoll_event(events: EPOLLIN.rawValue | EPOLLOUT.rawValue, data: epoll_data_t(fd: fd))
            _ = epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event)
        }

        /// A `sockaddr_in` or `sockaddr_in6` as bytes: an address as given, `localhost` as 127.0.0.1
        /// (where whalesim's own servers listen), else the first the resolver gives (kept per loop).
        private func address(of host: String, port: Int) -> [UInt8]? {
            let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            let name = bare == "localhost" ? "127.0.0.1" : bare
            var v4 = sockaddr_in()
            if inet_pton(AF_INET, name, &v4.sin_addr) == 1 {
                v4.sin_family = sa_family_t(AF_INET)
                v4.sin_port = in_port_t(UInt16(port).bigEndian)
                return withUnsafeBytes(of: v4) { Array($0) }
            }
            var v6 = sockaddr_in6()
            if inet_pton(AF_INET6, name, &v6.sin6_addr) == 1 {
                v6.sin6_family = sa_family_t(AF_INET6)
                v6.sin6_port = in_port_t(UInt16(port).bigEndian)
                return withUnsafeBytes(of: v6) { Array($0) }
            }
            if let known = resolved[name] { return known.isEmpty ? nil : Self.withPort(known, port) }
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            var found: [UInt8] = []
            if getaddrinfo(name, nil, &hints, &list) == 0, let first = list {
                var at: UnsafeMutablePointer<addrinfo>? = first
                while let info = at, found.isEmpty {
                    if info.pointee.ai_family == AF_INET || info.pointee.ai_family == AF_INET6,
                        let a = info.pointee.ai_addr
                    {
                        found = Array(UnsafeRawBufferPointer(start: a, count: Int(info.pointee.ai_addrlen)))
                    }
                    at = info.pointee.ai_next
                }
                freeaddrinfo(first)
            }
            resolved[name] = found
            return found.isEmpty ? nil : Self.withPort(found, port)
        }

        private static func withPort(_ address: [UInt8], _ port: Int) -> [UInt8] {
            var a = address
            // sin_port and sin6_port both sit at offset 2, in network order.
            a[2] = UInt8(port >> 8)
            a[3] = UInt8(port & 0xFF)
            return a
        }

        /// A socket that never got a descriptor: the handler hears why, then lets go.
        private func fail(_ socket: EpollClientSocket, reason: String) {
            let handler = socket.handler
            socket.handler = nil
            handler?.closed(socket, reason: reason)
        }

        func drop(_ socket: EpollClientSocket, reason: String) {
            guard socket.fd >= 0 else { return }
            _ = epoll_ctl(epoll, EPOLL_CTL_DEL, socket.fd, nil)
            sockets[Int(socket.fd)] = nil
            Glibc.close(socket.fd)
            socket.fd = -1
            socket.input = []
            socket.output = []
            socket.partial = nil
            fail(socket, reason: reason)
        }

        /// Reads what is there (once, as NIO does per readable event, more while the buffer fills)
        /// and hands each whole message to the handler.
        func readable(_ socket: EpollClientSocket) {
            while true {
                let got = buffer.withUnsafeMutableBytes { Glibc.read(socket.fd, $0.baseAddress, $0.count) }
                if got == 0 {
                    drop(
                        socket,
                        reason: socket.upgraded
                            ? "the server closed the connection" : "the server closed the connection before the upgrade"
                    ); return
                }
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
                if let refusal = upgradeRefusal(socket, head: UnsafeRawBufferPointer(rebasing: bytes[0..<end])) {
                    drop(socket, reason: refusal)
                    return 0
                }
                socket.upgraded = true
                at = end
                socket.handler?.opened(socket)
                if socket.fd < 0 { return 0 }
            }
            while bytes.count - at >= 2 {
                let first = bytes[at], second = bytes[at + 1]
                var length = Int(second & 0x7F), header = 2
                if length == 126 {
                    guard bytes.count - at >= 4 else { break }
                    length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
                    header = 4
                } else if length == 127 {
                    guard bytes.count - at >= 10 else { break }
                    var n: UInt64 = 0
                    for i in 2..<10 { n = n << 8 | UInt64(bytes[at + i]) }
                    length = n > UInt64(Int.max / 2) ? Int.max / 2 : Int(n)
                    header = 10
                }
                if let violation = Self.violation(first: first, second: second, length: length, socket: socket) {
                    fail(socket, violation)
                    return at
                }
                guard bytes.count - at - header >= length else { break }
                let payload = UnsafeRawBufferPointer(rebasing: bytes[(at + header)..<(at + header + length)])
                at += header + length
                message(socket, opcode: first & 0x0F, fin: first & 0x80 != 0, payload)
                if socket.fd < 0 { return at }
            }
            return at
        }

        /// Why a frame's header breaks RFC 6455 for a client, with the close code to answer; nil if it does not.
        private static func violation(first: UInt8, second: UInt8, length: Int, socket: EpollClientSocket) -> (
            UInt16, String
        )? {
            let opcode = first & 0x0F, fin = first & 0x80 != 0
            if first & 0x70 != 0 { return (1002, "a frame with reserved bits set (no extension was negotiated)") }
            if ![0, 1, 2, 8, 9, 10].contains(opcode) { return (1002, "a frame with the unknown opcode \(opcode)") }
            if second & 0x80 != 0 { return (1002, "a masked frame from the server") }
            if opcode & 0x8 != 0, !fin || length > 125 {
                return (1002, "a fragmented or overlong control frame (opcode \(opcode), \(length) bytes)")
            }
            if length > socket.maxFrameSize {
                return (1009, "a frame of \(length) bytes, over the limit of \(socket.maxFrameSize)")
            }
            if opcode == 0, socket.partial == nil { return (1002, "a continuation frame with no message begun") }
            if opcode == 1 || opcode == 2, socket.partial != nil {
                return (1002, "a new message before the last one's final fragment")
            }
            if opcode == 0, socket.partial!.count + length > socket.maxFrameSize {
                return (1009, "a fragmented message over the limit of \(socket.maxFrameSize) bytes")
            }
            return nil
        }

        private func message(_ socket: EpollClientSocket, opcode: UInt8, fin: Bool, _ payload: UnsafeRawBufferPointer) {
            switch opcode {
            case 1, 2:
                if fin { socket.handler?.received(socket, payload) } else { socket.partial = Array(payload) }
            case 0:
                socket.partial!.append(contentsOf: payload)
                if fin, let whole = socket.partial {
                    socket.partial = nil
                    whole.withUnsafeBytes { socket.handler?.received(socket, $0) }
                }
            case 8:
                let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil
                let reason = payload.count > 2 ? String(decoding: payload[2...], as: UTF8.self) : nil
                socket.handler?.closing(socket, code: code, reason: reason)
                if socket.closeSent {
                    drop(socket, reason: "closed")
                } else {
                    var echo: [UInt8] = [UInt8((code ?? 1000) >> 8), UInt8((code ?? 1000) & 0xFF)]
                    sendFrame(socket, payload: &echo, opcode: 0x8)
                    drop(socket, reason: "the server sent a close frame")
                }
            case 9:
                var echo = Array(payload)
                sendFrame(socket, payload: &echo, opcode: 0xA)
            case 10:
                socket.handler?.ponged(socket)
            default:
                break
            }
        }

        private func fail(_ socket: EpollClientSocket, _ violation: (UInt16, String)) {
            var code: [UInt8] = [UInt8(violation.0 >> 8), UInt8(violation.0 & 0xFF)]
            sendFrame(socket, payload: &code, opcode: 0x8)
            drop(socket, reason: "the server broke the websocket protocol: \(violation.1)")
        }

        /// Why the answer to the upgrade is not a websocket's (status, `Upgrade` header, accept key).
        private func upgradeRefusal(_ socket: EpollClientSocket, head: UnsafeRawBufferPointer) -> String? {
            let text = String(decoding: head, as: UTF8.self)
            var lines = text.split(separator: "\r\n", omittingEmptySubsequences: true)
            guard !lines.isEmpty else { return "the upgrade was refused: an empty answer" }
            let status = lines.removeFirst()
            let parts = status.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1] == "101" else {
                return "the upgrade was refused: " + String(status.prefix(80))
            }
            var headers = HTTPHeaders()
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers.add(
                    name: String(line[..<colon]),
                    value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            guard headers["Upgrade"].contains(where: { $0.lowercased() == "websocket" }) else {
                return "the upgrade was refused: a 101 without Upgrade: websocket"
            }
            guard
                socket.handshake.shouldAllowUpgrade(
                    upgradeResponse: HTTPResponseHead(version: .http1_1, status: .switchingProtocols, headers: headers))
            else {
                return "the upgrade was refused: Sec-WebSocket-Accept does not match the key sent"
            }
            return nil
        }

        private static func headEnd(_ bytes: UnsafeRawBufferPointer) -> Int? {
            guard bytes.count >= 4 else { return nil }
            for i in 3..<bytes.count
            where bytes[i] == 10 && bytes[i - 1] == 13 && bytes[i - 2] == 10 && bytes[i - 3] == 13 { return i + 1 }
            return nil
        }

        func sendFrame(_ socket: EpollClientSocket, payload: inout [UInt8], opcode: UInt8 = 0x1) {
            guard socket.fd >= 0, socket.upgraded, !socket.closeSent else { return }
            var frame: [UInt8] = []
            frame.reserveCapacity(payload.count + 14)
            frame.append(0x80 | opcode)
            if payload.count < 126 {
                frame.append(0x80 | UInt8(payload.count))
            } else if payload.count < 65_536 {
                // Byte by byte: an array literal here was an allocation per frame.
                frame.append(0x80 | 126)
                frame.append(UInt8(payload.count >> 8))
                frame.append(UInt8(payload.count & 0xFF))
            } else {
                frame.append(0x80 | 127)
                for shift in stride(from: 56, through: 0, by: -8) {
                    frame.append(UInt8((payload.count >> shift) & 0xFF))
                }
            }
            mask = mask &* 1_664_525 &+ 1_013_904_223
            let key = (UInt8(mask >> 24), UInt8((mask >> 16) & 0xFF), UInt8((mask >> 8) & 0xFF), UInt8(mask & 0xFF))
            frame.append(key.0)
            frame.append(key.1)
            frame.append(key.2)
            frame.append(key.3)
            let start = frame.count
            frame += payload
            frame.withUnsafeMutableBufferPointer { f in
                var i = start, k = 0
                while i < f.count {
                    switch k & 3 {
                    case 0: f[i] ^= key.0;
                    case 1: f[i] ^= key.1;
                    case 2: f[i] ^= key.2;
                    default: f[i] ^= key.3
                    }
                    i += 1; k += 1
                }
            }
            if socket.output.isEmpty {
                let wrote = frame.withUnsafeBytes { Glibc.write(socket.fd, $0.baseAddress, $0.count) }
                if wrote == frame.count { return }
                if wrote < 0, errno != EAGAIN, errno != EINTR {
                    drop(socket, reason: "write: \(String(cString: strerror(errno)))"); return
                }
                socket.output = Array(frame[max(0, wrote)...])
                var event = epoll_event(events: EPOLLIN.rawValue | EPOLLOUT.rawValue, data: epoll_data_t(fd: socket.fd))
                _ = epoll_ctl(epoll, EPOLL_CTL_MOD, socket.fd, &event)
            } else {
                socket.output += frame
            }
        }

        /// Writes what is waiting; once all of it is out, stops asking for writability.
        func flush(_ socket: EpollClientSocket) {
            if !socket.output.isEmpty {
                let wrote = socket.output.withUnsafeBytes { Glibc.write(socket.fd, $0.baseAddress, $0.count) }
                if wrote < 0 {
                    if errno == EAGAIN || errno == EINTR { return }
                    drop(
                        socket,
                        reason: socket.upgraded
                            ? "write: \(String(cString: strerror(errno)))"
                            : "connect: \(String(cString: strerror(errno)))")
                    return
                }
                socket.output.removeFirst(wrote)
            }
            if socket.output.isEmpty {
                var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: socket.fd))
                _ = epoll_ctl(epoll, EPOLL_CTL_MOD, socket.fd, &event)
            }
        }
    }
#endif
