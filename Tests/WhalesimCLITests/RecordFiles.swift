import Foundation
import WhaleRecord

/// What the CLI tests read from a run directory the commands wrote: the history (in either
/// form, as `whalesim history` prints it) and the packed histograms of a live `run.json`.
enum RecordFiles {
    /// The run's history as JSON lines, one a line, each ending in a newline.
    static func history(_ dir: URL) throws -> String {
        var text = ""
        try HistoryFiles.forEachLine(try HistoryFiles.history(in: dir.path)) {
            text += String(decoding: $0, as: UTF8.self) + "\n"
        }
        return text
    }

    /// `histograms` of a live run.json (schema 3: packed): metric → `[[value_us, count]]`.
    static func histograms(_ record: [String: Any]) throws -> [String: [[UInt64]]] {
        guard let packed = record["histograms"] as? String else { return [:] }
        return try HistogramPack.unpack(packed).mapValues { $0.first ?? [] }
    }
}
