import CZlib

/// A zlib deflate stream fed in pieces: what goes in comes out compressed through `emit`, so a
/// long history never sits whole in memory.
///
/// ```swift
/// var out: [UInt8] = []
/// let d = try Deflater(level: 6)
/// try d.write(Array("hello".utf8)) { out += $0 }
/// try d.finish { out += $0 }
/// ```
final class Deflater {
    private var stream = z_stream()
    private var finished = false

    init(level: Int32 = 6) throws(RecordFileError) {
        guard whale_deflate_init(&stream, level) == Z_OK else { throw .io("zlib: deflateInit failed") }
    }

    deinit { deflateEnd(&stream) }

    /// Compresses `bytes`; `emit` receives whatever compressed output is ready.
    func write(_ bytes: [UInt8], emit: ([UInt8]) throws(RecordFileError) -> Void) throws(RecordFileError) {
        try run(bytes, flush: Z_NO_FLUSH, emit: emit)
    }

    /// Ends the stream (with zlib's Adler-32 trailer, which catches a corrupt file on reading).
    func finish(emit: ([UInt8]) throws(RecordFileError) -> Void) throws(RecordFileError) {
        guard !finished else { return }
        try run([], flush: Z_FINISH, emit: emit)
        finished = true
    }

    private func run(_ bytes: [UInt8], flush: Int32, emit: ([UInt8]) throws(RecordFileError) -> Void)
        throws(RecordFileError)
    {
        var input = bytes
        let inputCount = input.count
        var out = [UInt8](repeating: 0, count: 64 * 1024)
        try input.withUnsafeMutableBufferPointer {
            (inBuf: inout UnsafeMutableBufferPointer<UInt8>) throws(RecordFileError) in
            stream.next_in = inBuf.baseAddress
            stream.avail_in = UInt32(inputCount)
            while true {
                let (status, produced) = out.withUnsafeMutableBufferPointer { outBuf in
                    stream.next_out = outBuf.baseAddress
                    stream.avail_out = UInt32(outBuf.count)
                    let status = deflate(&stream, flush)
                    return (status, outBuf.count - Int(stream.avail_out))
                }
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    throw .io("zlib: deflate failed (\(status))")
                }
                if produced > 0 { try emit(Array(out[0..<produced])) }
                if flush == Z_FINISH {
                    if status == Z_STREAM_END { break }
                } else if stream.avail_in == 0 && produced < out.count {
                    break
                }
            }
            stream.next_in = nil
        }
    }
}

/// The other end: compressed pieces in, decompressed pieces out.
final class Inflater {
    private var stream = z_stream()
    /// True once zlib has seen the end of the stream (and checked its Adler-32).
    private(set) var ended = false

    init() throws(RecordFileError) {
        guard whale_inflate_init(&stream) == Z_OK else { throw .io("zlib: inflateInit failed") }
    }

    deinit { inflateEnd(&stream) }

    /// Decompresses `bytes`; returns the output (empty when the input only filled zlib's window).
    /// Bytes after the end of the stream are an error: nothing follows a record's stream.
    func inflate(_ bytes: [UInt8]) throws(RecordFileError) -> [UInt8] {
        if ended {
            if bytes.isEmpty { return [] }
            throw .corrupt("bytes after the end of the compressed stream")
        }
        var input = bytes
        let inputCount = input.count
        var result: [UInt8] = []
        var out = [UInt8](repeating: 0, count: 64 * 1024)
        try input.withUnsafeMutableBufferPointer {
            (inBuf: inout UnsafeMutableBufferPointer<UInt8>) throws(RecordFileError) in
            stream.next_in = inBuf.baseAddress
            stream.avail_in = UInt32(inputCount)
            while true {
                let (status, produced) = out.withUnsafeMutableBufferPointer { outBuf in
                    stream.next_out = outBuf.baseAddress
                    stream.avail_out = UInt32(outBuf.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, outBuf.count - Int(stream.avail_out))
                }
                if produced > 0 { result += out[0..<produced] }
                if status == Z_STREAM_END {
                    ended = true
                    if stream.avail_in > 0 { throw .corrupt("bytes after the end of the compressed stream") }
                    break
                }
                if status == Z_BUF_ERROR { break }  // no progress possible: needs more input
                guard status == Z_OK else {
                    let why = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                    throw .corrupt("compressed data is damaged (zlib: \(why))")
                }
                if stream.avail_in == 0 && produced < out.count { break }
            }
            stream.next_in = nil
        }
        return result
    }
}

/// Deflates a whole buffer at once (small things: packed histograms).
func deflateAll(_ bytes: [UInt8], level: Int32 = 9) throws(RecordFileError) -> [UInt8] {
    var out: [UInt8] = []
    let d = try Deflater(level: level)
    try d.write(bytes) { out += $0 }
    try d.finish { out += $0 }
    return out
}

/// Inflates a whole buffer at once; a stream that does not end is `truncated`.
func inflateAll(_ bytes: [UInt8]) throws(RecordFileError) -> [UInt8] {
    let i = try Inflater()
    let out = try i.inflate(bytes)
    guard i.ended else { throw .truncated("the compressed stream ends early") }
    return out
}
