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
                    guard pair.count == 2 else {
                        throw .corrupt("histogram \(name): a bucket entry of \(pair.count) numbers, not [value, count]")
                    }
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
        try read(text, keep: true)
    }

    /// Checks `text` as ``unpack(_:)`` reads it, without building the histograms: a long run's
    /// unpacked buckets (an array per pair) take some 40 times the packed bytes, 230 MB for a
    /// ten-minute soak, which a reader that needs only the rest of `run.json` should not pay.
    public static func validate(_ text: String) throws(RecordFileError) {
        _ = try read(text, keep: false)
    }

    private static func read(_ text: String, keep: Bool) throws(RecordFileError) -> [String: [[[UInt64]]]] {
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
                if keep { buckets.append(pairs) }
            }
            if keep { out[name] = buckets }
        }
        guard p == raw.count else { throw .corrupt("packed histograms: bytes after the last metric") }
        return out
    }
}
