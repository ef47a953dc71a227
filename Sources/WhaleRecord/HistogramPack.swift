/// HdrHistogram buckets packed for `run.json` (schema 3): `[[value_us, count], ...]` lists as
/// varints (per bucket each value as its distance from the one before, then the counts), deflated and
/// base64-encoded into one string. A live demo's per-second histograms take 413 KB as JSON
/// arrays and about a tenth of that packed; unpacking gives back exactly the same pairs.
///
/// ```swift
/// let s = try HistogramPack.pack(["op_ack": [[[1200, 3], [1400, 1]]]])
/// try HistogramPack.unpack(s)   // ["op_ack": [[[1200, 3], [1400, 1]]]]
/// ```
public enum HistogramPack {
    static let version: UInt8 = 1

    /// Metric → one list of `[value, count]` pairs per bucket.
    public static func pack(_ histograms: [String: [[[UInt64]]]]) throws(RecordFileError) -> String {
        var raw: [UInt8] = [version]
        raw.appendVarint(UInt64(histograms.count))
        for name in histograms.keys.sorted() {
            raw.appendBytes(Array(name.utf8))
            let buckets = histograms[name]!
            raw.appendVarint(UInt64(buckets.count))
            for pairs in buckets {
                raw.appendVarint(UInt64(pairs.count))
                var last: UInt64 = 0
                // The values, then the counts: deflate does better on runs of alike numbers (10 %).
                for pair in pairs {
                    guard pair.count == 2 else { throw .corrupt("histogram \(name): a bucket entry of \(pair.count) numbers, not [value, count]") }
                    // Values ascend in an HdrHistogram's buckets; zigzag keeps any order exact.
                    raw.appendZigzag(Int64(bitPattern: pair[0] &- last))
                    last = pair[0]
                }
                for pair in pairs { raw.appendVarint(pair[1]) }
            }
        }
        return Base64.encode(try deflateAll(raw))
    }

    public static func unpack(_ text: String) throws(RecordFileError) -> [String: [[[UInt64]]]] {
        guard let compressed = Base64.decode(text) else { throw .corrupt("packed histograms: not base64") }
        let raw = try inflateAll(compressed)
        var p = 0
        func byte() throws(RecordFileError) -> UInt8 {
            guard p < raw.count else { throw .truncated("packed histograms end early") }
            defer { p += 1 }
            return raw[p]
        }
        func varint() throws(RecordFileError) -> UInt64 {
            var v: UInt64 = 0, shift: UInt64 = 0
            while true {
                let x = try byte()
                guard shift < 64 else { throw .corrupt("packed histograms: a varint is too long") }
                v |= UInt64(x & 0x7F) << shift
                if x & 0x80 == 0 { return v }
                shift += 7
            }
        }
        func count() throws(RecordFileError) -> Int {
            let n = try varint()
            guard n <= UInt64(raw.count - p) else { throw .corrupt("packed histograms: a count of \(n) past the data") }
            return Int(n)
        }
        guard try byte() == version else { throw .unsupportedVersion("packed histograms: unknown version") }
        var out: [String: [[[UInt64]]]] = [:]
        for _ in 0..<(try count()) {
            let length = try count()
            let name = String(decoding: raw[p..<(p + length)], as: UTF8.self)
            p += length
            var buckets: [[[UInt64]]] = []
            for _ in 0..<(try count()) {
                var pairs: [[UInt64]] = []
                var last: UInt64 = 0
                for _ in 0..<(try count()) {
                    let value = last &+ UInt64(bitPattern: unzigzag(try varint()))
                    pairs.append([value, 0])
                    last = value
                }
                for k in pairs.indices { pairs[k][1] = try varint() }
                buckets.append(pairs)
            }
            out[name] = buckets
        }
        guard p == raw.count else { throw .corrupt("packed histograms: bytes after the last metric") }
        return out
    }
}

/// RFC 4648 base64 (with padding), so a target with no Foundation can pack.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let n = UInt32(bytes[i]) << 16
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], UInt8(ascii: "="), UInt8(ascii: "=")]
        } else if rest == 2 {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], UInt8(ascii: "=")]
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        var table = [UInt8](repeating: 255, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 4 * 3)
        var i = 0
        while i < chars.count {
            let last = i + 4 == chars.count
            let pad = last ? (chars[i + 3] == UInt8(ascii: "=") ? (chars[i + 2] == UInt8(ascii: "=") ? 2 : 1) : 0) : 0
            var n: UInt32 = 0
            for k in 0..<4 {
                let c = chars[i + k]
                if k >= 4 - pad { n <<= 6; continue }
                let v = table[Int(c)]
                guard v != 255 else { return nil }
                n = n << 6 | UInt32(v)
            }
            out.append(UInt8(n >> 16 & 255))
            if pad < 2 { out.append(UInt8(n >> 8 & 255)) }
            if pad < 1 { out.append(UInt8(n & 255)) }
            i += 4
        }
        return out
    }
}
