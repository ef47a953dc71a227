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
