import WhaleRecord

/// One finished second of ``LiveMetrics``' per-second histograms as bytes in the spill file:
/// for each metric, in name order, the name's length and UTF-8 bytes, the sample count, and the
/// compact pairs' length and bytes (``LatencyHistogram/compactForm``), all lengths as varints.
enum SpilledSecond {
    static func encode(_ byName: [String: LatencyHistogram]) -> [UInt8] {
        var out: [UInt8] = []
        for name in byName.keys.sorted() {
            let (pairs, count) = byName[name]!.compactForm
            out.appendVarint(UInt64(name.utf8.count))
            out.append(contentsOf: name.utf8)
            out.appendVarint(UInt64(count))
            out.appendVarint(UInt64(pairs.count))
            out.append(contentsOf: pairs)
        }
        return out
    }

    /// The histograms `encode` wrote, or nil when `bytes` are not whole entries of that form (a
    /// scratch file read back wrong): every length is checked against what is left, and the pairs
    /// must be whole varints.
    static func decode(_ bytes: [UInt8]) -> [String: LatencyHistogram]? {
        var at = 0
        func varint() -> Int? {
            var v: UInt64 = 0, shift: UInt64 = 0
            while at < bytes.count, shift < 64 {
                let b = bytes[at]
                at += 1
                v |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return v <= UInt64(Int.max) ? Int(v) : nil }
                shift += 7
            }
            return nil
        }
        func take(_ n: Int) -> ArraySlice<UInt8>? {
            guard n <= bytes.count - at else { return nil }
            defer { at += n }
            return bytes[at..<(at + n)]
        }
        var out: [String: LatencyHistogram] = [:]
        while at < bytes.count {
            guard let nameLength = varint(), let nameBytes = take(nameLength), let name = String(validating: nameBytes, as: UTF8.self),
                  let count = varint(), let pairsLength = varint(), let pairs = take(pairsLength), wholeVarints(pairs), out[name] == nil else { return nil }
            out[name] = LatencyHistogram(compactPairs: Array(pairs), count: count)
        }
        return out
    }

    /// Each value and count of the pairs ends inside the bytes, and they come in pairs.
    private static func wholeVarints(_ bytes: ArraySlice<UInt8>) -> Bool {
        var values = 0, open = false
        for b in bytes {
            open = b >= 0x80
            if !open { values += 1 }
        }
        return !open && values % 2 == 0
    }
}
