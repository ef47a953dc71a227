import Foundation

/// Writes a run directory's three rendered files from its record: `report.html`,
/// `junit.xml` and `summary.json`. `whalesim simulate` calls it after writing the record;
/// `whalesim report RUN_DIR` calls it again to re-render.
///
/// ```swift
/// let run = try RunDirectory.load("Reports/convergence-smoke/latest")
/// let written = try ReportFiles.write(run)   // ["report.html", "junit.xml", "summary.json"]
/// ```
public enum ReportFiles {
    public static let html = "report.html"
    public static let junit = "junit.xml"
    public static let summary = "summary.json"

    /// The run's series: the runner's own if `run.json` has them, else derived from the history.
    public static func series(for run: RunDirectory) -> RunSeries {
        run.record.series
            ?? SeriesDerivation.derive(run.history, documents: run.record.documents, unit: run.record.unit)
    }

    /// Renders the three files (in memory).
    public static func render(_ run: RunDirectory, limits: ReportHTML.Limits = .init()) throws -> [(
        name: String, data: Data
    )] {
        let series = series(for: run)
        return [
            (html, Data(ReportHTML(run: run, series: series, limits: limits).render().utf8)),
            (junit, Data(JUnitXML(run: run).render().utf8)),
            (summary, try RunSummary(run: run, series: series).json() + Data("\n".utf8)),
        ]
    }

    /// Renders and writes the three files into the run directory; returns their names.
    @discardableResult
    public static func write(_ run: RunDirectory, limits: ReportHTML.Limits = .init()) throws -> [String] {
        let files = try render(run, limits: limits)
        for file in files {
            try file.data.write(
                to: URL(fileURLWithPath: (run.path as NSString).appendingPathComponent(file.name)), options: .atomic)
        }
        return files.map(\.name)
    }
}
