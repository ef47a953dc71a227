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
        guard let f = fopen(path, "wb") else {
            throw .io("\(path): cannot create (\(String(cString: strerror(errno))))")
        }
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
