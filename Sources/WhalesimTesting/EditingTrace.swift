import Foundation

/// A real editing history from josephg/editing-traces (`Fixtures/traces/`, CC BY 4.0, see the
/// README there): start from ``startContent``, apply every patch in order, get ``endContent``.
/// Positions and lengths count Unicode scalars.
///
/// ```swift
/// let trace = try EditingTrace.load(name: "sveltecomponent")
/// var doc = TextDocument(trace.startContent)
/// for patch in trace.patches { try doc.replace(at: patch.position, deleting: patch.deleted, inserting: patch.text) }
/// doc.text == trace.endContent   // true
/// ```
public struct EditingTrace: Sendable {
    /// One edit: delete `deleted` scalars at `position`, then insert `text` there.
    public struct Patch: Sendable, Hashable {
        public var position: Int
        public var deleted: Int
        public var text: String
        public init(position: Int, deleted: Int, text: String) {
            self.position = position
            self.deleted = deleted
            self.text = text
        }
    }

    /// The trace names shipped in `Fixtures/traces/`.
    public static let names = ["automerge-paper", "friendsforever_flat", "rustcode", "sveltecomponent"]

    public var name: String
    public var startContent: String
    public var endContent: String
    /// Every patch of every transaction, flattened in order.
    public var patches: [Patch]

    /// `Fixtures/traces/` of this package, found from this source file's path.
    public static var defaultDirectory: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // WhalesimTesting
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()  // package root
            .appendingPathComponent("Fixtures/traces")
    }

    /// Loads `<directory>/<name>.json.gz`.
    public static func load(name: String, directory: URL = defaultDirectory) throws -> EditingTrace {
        let file = directory.appendingPathComponent("\(name).json.gz")
        let json = try gunzip(file)
        return try parse(json, name: name)
    }

    /// Parses the trace JSON (already decompressed).
    public static func parse(_ json: Data, name: String) throws -> EditingTrace {
        guard let root = try JSONSerialization.jsonObject(with: json) as? [String: Any],
            let start = root["startContent"] as? String,
            let end = root["endContent"] as? String,
            let txns = root["txns"] as? [[String: Any]]
        else { throw TraceError("\(name): not an editing trace (needs startContent, endContent, txns)") }
        var patches: [Patch] = []
        patches.reserveCapacity(txns.count)
        for (t, txn) in txns.enumerated() {
            guard let list = txn["patches"] as? [[Any]] else { throw TraceError("\(name): txns[\(t)] has no patches") }
            for raw in list {
                guard raw.count == 3, let position = (raw[0] as? NSNumber)?.intValue,
                    let deleted = (raw[1] as? NSNumber)?.intValue, let text = raw[2] as? String
                else { throw TraceError("\(name): txns[\(t)] has a malformed patch") }
                patches.append(Patch(position: position, deleted: deleted, text: text))
            }
        }
        return EditingTrace(name: name, startContent: start, endContent: end, patches: patches)
    }

    /// Foundation on Linux has no gzip; `/bin/gzip -dc` is on every machine that runs the tests.
    static func gunzip(_ file: URL) throws -> Data {
        guard FileManager.default.fileExists(atPath: file.path) else { throw TraceError("no trace at \(file.path)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-dc", file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        // Read before waiting: a full pipe would otherwise block gzip forever.
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TraceError("gzip -dc \(file.path) failed (\(process.terminationStatus))")
        }
        return data
    }
}

/// A trace that could not be read, with the reason.
public struct TraceError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
