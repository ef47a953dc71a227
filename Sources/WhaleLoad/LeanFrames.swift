import NIOCore

/// RFC 6455 frames as a client reads and writes them, straight on `ByteBuffer`s: the load
/// runner's websocket path without NIO's frame decoder, its `WebSocketFrame` values and the
/// pipeline hops between them (docs/decisions/0034-lean-frames-frame-reader-of-its-own.md:
/// they were about a tenth of the runner's CPU at 2,000 ops/s).
enum LeanFrames {
    enum Opcode: UInt8 {
        case continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA

        var isControl: Bool { rawValue & 0x8 != 0 }
    }

    /// One whole frame from the server: its payload is a slice of the bytes read.
    struct Frame {
        var fin: Bool
        var opcode: Opcode
        var payload: ByteBuffer
    }

    /// Why the server's bytes are not a websocket stream; `closeCode` is what the client answers.
    struct Violation: Error, CustomStringConvertible {
        var closeCode: UInt16
        var description: String
    }

    /// The next whole frame at `buffer`'s reader index, which moves past it; nil (and the index
    /// unmoved) when the frame's bytes have not all arrived yet.
    static func next(in buffer: inout ByteBuffer, maxFrameSize: Int) throws(Violation) -> Frame? {
        let start = buffer.readerIndex
        guard let first = buffer.getInteger(at: start, as: UInt8.self),
            let second = buffer.getInteger(at: start + 1, as: UInt8.self)
        else { return nil }
        guard first & 0x70 == 0 else {
            throw Violation(
                closeCode: 1002, description: "a frame with reserved bits set (no extension was negotiated)")
        }
        guard let opcode = Opcode(rawValue: first & 0x0F) else {
            throw Violation(closeCode: 1002, description: "a frame with the unknown opcode \(first & 0x0F)")
        }
        // RFC 6455 §5.1: a client closes the connection when the server masks a frame.
        guard second & 0x80 == 0 else {
            throw Violation(closeCode: 1002, description: "a masked frame from the server")
        }
        var headerLength = 2
        var length = Int(second & 0x7F)
        if length == 126 {
            guard let n = buffer.getInteger(at: start + 2, as: UInt16.self) else { return nil }
            length = Int(n)
            headerLength = 4
        } else if length == 127 {
            guard let n = buffer.getInteger(at: start + 2, as: UInt64.self) else { return nil }
            guard n <= UInt64(Int.max) else { throw Violation(closeCode: 1009, description: "a frame of \(n) bytes") }
            length = Int(n)
            headerLength = 10
        }
        let fin = first & 0x80 != 0
        if opcode.isControl, !fin || length > 125 {
            throw Violation(
                closeCode: 1002,
                description: "a fragmented or overlong control frame (opcode \(opcode.rawValue), \(length) bytes)")
        }
        guard length <= maxFrameSize else {
            throw Violation(
                closeCode: 1009, description: "a frame of \(length) bytes, over the limit of \(maxFrameSize)")
        }
        guard buffer.readableBytes >= headerLength + length else { return nil }
        buffer.moveReaderIndex(forwardBy: headerLength)
        let payload = buffer.readSlice(length: length)!
        return Frame(fin: fin, opcode: opcode, payload: payload)
    }

    /// A whole client frame: FIN set, masked with a fresh key (RFC 6455 §5.3), `payload` written once.
    static func encode(
        _ opcode: Opcode, allocator: ByteBufferAllocator, payloadLength: Int,
        writePayload: (inout ByteBuffer) -> Void
    ) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 14 + payloadLength)
        buffer.writeInteger(0x80 | opcode.rawValue)
        if payloadLength < 126 {
            buffer.writeInteger(UInt8(0x80 | payloadLength))
        } else if payloadLength <= 0xFFFF {
            buffer.writeInteger(UInt8(0x80 | 126))
            buffer.writeInteger(UInt16(payloadLength))
        } else {
            buffer.writeInteger(UInt8(0x80 | 127))
            buffer.writeInteger(UInt64(payloadLength))
        }
        var generator = SystemRandomNumberGenerator()
        let key: UInt32 = generator.next()
        buffer.writeInteger(key)
        let payloadStart = buffer.writerIndex
        writePayload(&buffer)
        precondition(
            buffer.writerIndex - payloadStart == payloadLength, "the payload written is not the length announced")
        buffer.withUnsafeMutableReadableBytes { bytes in
            var i = payloadStart
            while i < bytes.count {
                bytes[i] ^= UInt8(truncatingIfNeeded: key >> (24 - 8 * ((i - payloadStart) & 3)))
                i += 1
            }
        }
        return buffer
    }

    static func encode(_ opcode: Opcode, text: String, allocator: ByteBufferAllocator) -> ByteBuffer {
        encode(opcode, allocator: allocator, payloadLength: text.utf8.count) { $0.writeString(text) }
    }

    static func encode(_ opcode: Opcode, bytes: ByteBuffer, allocator: ByteBufferAllocator) -> ByteBuffer {
        var bytes = bytes
        return encode(opcode, allocator: allocator, payloadLength: bytes.readableBytes) { $0.writeBuffer(&bytes) }
    }

    static func close(code: UInt16, allocator: ByteBufferAllocator) -> ByteBuffer {
        encode(.close, allocator: allocator, payloadLength: 2) { $0.writeInteger(code) }
    }
}
