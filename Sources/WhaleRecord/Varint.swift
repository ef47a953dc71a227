/// LEB128 varints (7 bits a byte, low first) and zigzag for signed values: small numbers, small bytes.
extension Array where Element == UInt8 {
    public mutating func appendVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        append(UInt8(v))
    }

    mutating func appendZigzag(_ value: Int64) {
        appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// A length-prefixed byte string.
    public mutating func appendBytes<C: Collection<UInt8>>(_ bytes: C) {
        appendVarint(UInt64(bytes.count))
        append(contentsOf: bytes)
    }

    /// The varint at `at`, moving past it; nil when it runs past the end or past 64 bits (bytes
    /// that may have been damaged: a scratch file read back, a record from elsewhere).
    public func readVarintChecked(at: inout Int) -> UInt64? {
        var v: UInt64 = 0, shift: UInt64 = 0
        while at < count, shift < 64 {
            let b = self[at]
            at += 1
            v |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return v }
            shift += 7
        }
        return nil
    }

    /// The varint at `at`, which moves past it (the caller wrote the bytes: no bounds beyond the array's own).
    public func readVarint(at: inout Int) -> UInt64 {
        var v: UInt64 = 0, shift: UInt64 = 0
        while true {
            let b = self[at]
            at += 1
            v |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return v }
            shift += 7
        }
    }
}

func unzigzag(_ v: UInt64) -> Int64 { Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1))) }

/// Reads bytes from a buffer that a streaming source refills: `need` asks for more and returns
/// false at the end of the data.
struct ByteCursor {
    var bytes: [UInt8] = []
    var position = 0

    var available: Int { bytes.count - position }

    /// Drops what has been read, keeping the buffer small.
    mutating func compact() {
        if position > 0 {
            bytes.removeFirst(position)
            position = 0
        }
    }
}
