#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The compact history file of a run directory (`history.whr`, docs/run-record.md "The history
/// file"): 8 header bytes (`WHHIST`, the format version, a zero), then one zlib stream of
/// ``HistoryEncoder`` records ending with an end marker. Written and read a line at a time, so a
/// history of millions of events never sits whole in memory.
///
/// ```swift
/// let w = try HistoryFileWriter(path: "run/history.whr")
/// try w.append(#"{"t":0,"type":"heal"}"#)
/// try w.finish()
/// try HistoryFiles.forEachLine("run/history.whr") { line in print(String(decoding: line, as: UTF8.self)) }
/// ```
public enum HistoryFileFormat {
    public static let magic: [UInt8] = Array("WHHIST".utf8)
    public static let version: UInt8 = 1
    public static var header: [UInt8] { magic + [version, 0] }
}

/// Writes a history file line by line.
public final class HistoryFileWriter {
    private let path: String
    private var file: UnsafeMutablePointer<FILE>?
    private var encoder = HistoryEncoder()
    private let deflater: Deflater
    private var pending: [UInt8] = []
    /// Bytes of JSON lines taken (newlines included) and bytes written so far.
    public private(set) var linesBytes = 0
    public private(set) var fileBytes = 0

    public init(path: String) throws(RecordFileError) {
        self.path = path
        deflater = try Deflater(level: 6)
        guard let f = fopen(path, "wb") else { throw .io("\(path): cannot create (\(String(cString: strerror(errno))))") }
        file = f
        try put(HistoryFileFormat.header)
    }

    deinit { if let file { fclose(file) } }

    /// Adds one line (a JSON object; without its newline).
    public func append(_ line: String) throws(RecordFileError) {
        try append(bytes: Array(line.utf8))
    }

    public func append(bytes line: [UInt8]) throws(RecordFileError) {
        encoder.encode(line, into: &pending)
        linesBytes += line.count + 1
        if pending.count >= 256 * 1024 { try flushPending() }
    }

    /// Writes the end marker and closes the file. Nothing may be appended afterwards.
    public func finish() throws(RecordFileError) {
        pending.appendVarint(HistoryEncoder.Tag.end)
        try flushPending()
        try deflater.finish { (bytes) throws(RecordFileError) in try put(bytes) }
        guard let file else { return }
        self.file = nil
        guard fclose(file) == 0 else { throw .io("\(path): cannot close (\(String(cString: strerror(errno))))") }
    }

    private func flushPending() throws(RecordFileError) {
        let chunk = pending
        pending.removeAll(keepingCapacity: true)
        try deflater.write(chunk) { (bytes) throws(RecordFileError) in try put(bytes) }
    }

    private func put(_ bytes: [UInt8]) throws(RecordFileError) {
        guard let file else { throw .io("\(path): already closed") }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        guard written == bytes.count else { throw .io("\(path): cannot write (\(String(cString: strerror(errno))))") }
        fileBytes += bytes.count
    }
}

/// Reads a history file line by line.
public final class HistoryFileReader {
    private let path: String
    private var file: UnsafeMutablePointer<FILE>?
    private var decoder = HistoryDecoder()
    private let inflater: Inflater
    private var cursor = ByteCursor()
    private var done = false

    /// Opens `path` and checks its header. Throws ``RecordFileError`` naming the file.
    public init(path: String) throws(RecordFileError) {
        self.path = path
        inflater = try Inflater()
        guard let f = fopen(path, "rb") else { throw .missing("\(path): missing") }
        file = f
        var header = [UInt8](repeating: 0, count: HistoryFileFormat.header.count)
        let n = header.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
        guard n >= HistoryFileFormat.magic.count, Array(header[0..<HistoryFileFormat.magic.count]) == HistoryFileFormat.magic else {
            throw .notARecord("\(path): not a whalesim history file (no WHHIST header)")
        }
        guard n == header.count else { throw .truncated("\(path): truncated (the file ends inside its header)") }
        guard header[6] == HistoryFileFormat.version, header[7] == 0 else {
            throw .unsupportedVersion("\(path): history format version \(header[6]) is not supported (this whalesim reads version \(HistoryFileFormat.version))")
        }
    }

    deinit { if let file { fclose(file) } }

    /// The next line (a JSON object, without its newline), or nil at the end of the history.
    public func next() throws(RecordFileError) -> [UInt8]? {
        if done { return nil }
        while true {
            do {
                switch try decoder.next(&cursor) {
                case .line(let line)?:
                    return line
                case .end?:
                    try finishStream()
                    done = true
                    return nil
                case nil:
                    break
                }
            } catch {
                throw error.prefixed(path)
            }
            cursor.compact()
            guard try refill() else {
                throw .truncated("\(path): truncated (the history ends without its end marker)")
            }
        }
    }

    /// Decompresses another piece of the file into the cursor; false at the end of the file.
    private func refill() throws(RecordFileError) -> Bool {
        while true {
            guard let chunk = try readChunk() else { return false }
            let out: [UInt8]
            do { out = try inflater.inflate(chunk) } catch { throw error.prefixed(path) }
            if !out.isEmpty {
                cursor.bytes += out
                return true
            }
            if inflater.ended { return false }
        }
    }

    /// After the end marker only zlib's trailer may follow: it is read (and its checksum checked).
    private func finishStream() throws(RecordFileError) {
        guard cursor.available == 0 else { throw .corrupt("\(path): bytes after the end marker") }
        while !inflater.ended {
            guard let chunk = try readChunk() else { throw .truncated("\(path): truncated (the compressed stream ends early)") }
            let out: [UInt8]
            do { out = try inflater.inflate(chunk) } catch { throw error.prefixed(path) }
            guard out.isEmpty else { throw .corrupt("\(path): bytes after the end marker") }
        }
        while let chunk = try readChunk() {
            guard chunk.isEmpty else { throw .corrupt("\(path): bytes after the end of the compressed stream") }
        }
    }

    private func readChunk() throws(RecordFileError) -> [UInt8]? {
        guard let file else { return nil }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        if n == 0 {
            if ferror(file) != 0 { throw .io("\(path): cannot read (\(String(cString: strerror(errno))))") }
            return nil
        }
        return Array(chunk[0..<n])
    }
}
