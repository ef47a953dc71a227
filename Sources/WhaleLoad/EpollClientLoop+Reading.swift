import Foundation
#if canImport(Glibc)
    import Glibc
    import NIOHTTP1
    import NIOWebSocket

    /// The read side of the loop's sockets: bytes in, the upgrade answer checked, frames parsed where
    /// they lie and each whole message handed to the socket's handler.
    extension EpollClientLoop {
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
    }
#endif
