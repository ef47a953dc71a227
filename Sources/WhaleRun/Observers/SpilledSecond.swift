import WhaleRecord

/// One finished second of ``LiveMetrics``' per-second histograms as bytes in the spill file:
/// for each metric, in name order, the name's length and UTF-8 bytes, the sample count, and the
/// compact pairs' length and bytes (``LatencyHistogram/compactForm``), all lengths as varints.
enum SpilledSecond {
    static func encode(_ byName: [String: LatencyHistogram]) -> [UInt8] {
        var out: [UInt8] = []
        for name in byName.keys.sorted() {
            let (pairs, count) = byName[name]!.compactForm
            out.appendBytes(Array(name.utf8))
            out.appendVarint(UInt64(count))
            out.appendBytes(pairs)
        }
        return out
    }

    /// The histograms `encode` wrote, or nil when `bytes` are not whole entries of that form (a
    /// scratch file read back wrong): every length is checked against what is left, and the pairs
    /// must be whole varints.
    static func decode(_ bytes: [UInt8]) -> [String: LatencyHistogram]? {
        var at = 0
        func varint() -> Int? { bytes.readVarintChecked(at: &at).flatMap { $0 <= UInt64(Int.max) ? Int($0) : nil } }
        func take(_ n: Int) -> ArraySlice<UInt8>? {
            guard n <= bytes.count - at else { return nil }
            defer { at += n }
            return bytes[at..<(at + n)]
        }
        var out: [String: LatencyHistogram] = [:]
        while at < bytes.count {
            guard let nameLength = varint(), let nameBytes = take(nameLength),
                let name = String(validating: nameBytes, as: UTF8.self),
                let count = varint(), let pairsLength = varint(), let pairs = take(pairsLength).map(Array.init),
                wholePairs(pairs),
                out[name] == nil
            else { return nil }
            out[name] = LatencyHistogram(compactPairs: pairs, count: count)
        }
        return out
    }

    /// The bytes are whole (value, count) varint pairs.
    private static func wholePairs(_ bytes: [UInt8]) -> Bool {
        var at = 0, values = 0
        while at < bytes.count {
            guard bytes.readVarintChecked(at: &at) != nil else { return false }
            values += 1
        }
        return values % 2 == 0
    }
}
