#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
        guard n >= HistoryFileFormat.magic.count,
            Array(header[0..<HistoryFileFormat.magic.count]) == HistoryFileFormat.magic
        else {
            throw .notARecord("\(path): not a whalesim history file (no WHHIST header)")
        }
        guard n == header.count else { throw .truncated("\(path): truncated (the file ends inside its header)") }
        guard header[6] == HistoryFileFormat.version, header[7] == 0 else {
            throw .unsupportedVersion(
                "\(path): history format version \(header[6]) is not supported (this whalesim reads version \(HistoryFileFormat.version))"
            )
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
            guard let chunk = try readChunk() else {
                throw .truncated("\(path): truncated (the compressed stream ends early)")
            }
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
