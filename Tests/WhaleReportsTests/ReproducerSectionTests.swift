import Foundation
import Testing
@testable import WhaleReports

/// A run directory with `reproducer.json` (what `whalesim reproduce` writes): the report links
/// the reproducer files and shows the shrunk script; a corrupt file is an error naming it.
@Suite struct ReproducerSectionTests {
    static let json = """
        {"schemaVersion": 1, "note": "acc-1001", "checker": "convergence", "status": "reproduced",
         "serverOrder": "the same as live (12 ops)", "notes": [], "liveEvidence": ["t=5 c001 diverged"],
         "liveReplay": "whalesim run x.yml --seed 7", "reproducer": "reproducer.yml", "replay": "whalesim simulate /r/reproducer.yml",
         "simulatedEvidence": ["t=5 c00 diverged"],
         "shrunk": {"file": "reproducer-shrunk.yml", "replay": "whalesim simulate /r/reproducer-shrunk.yml", "clients": 2, "steps": 3, "edits": 1, "runs": 40,
                    "script": ["t=0 c00 connect", "t=3 c00 edit at 0 delete 0 insert \\"<b>\\"", "t=4 c00 arrive"], "evidence": ["c00:1 applied twice"]}}
        """

    @Test func theReportLinksTheReproducerAndShowsTheShrunkScript() throws {
        let dir = try Support.copyOfRun("failed-shrunk")
        try Self.json.write(to: dir.appendingPathComponent("reproducer.json"), atomically: true, encoding: .utf8)
        let run = try RunDirectory.load(dir.path)
        #expect(run.reproducer?.shrunk?.clients == 2)
        let page = ReportHTML(run: run, series: ReportFiles.series(for: run)).render()
        #expect(page.contains("<h2>Simulator reproducer</h2>"))
        #expect(page.contains("<a href=\"reproducer-shrunk.yml\">reproducer-shrunk.yml</a>"))
        #expect(page.contains("<code>whalesim simulate /r/reproducer.yml</code>"))
        #expect(page.contains("<code>whalesim run x.yml --seed 7</code>"))
        #expect(page.contains("insert &quot;&lt;b&gt;&quot;"), "script lines are escaped")
        // Without the file, no section.
        try FileManager.default.removeItem(at: dir.appendingPathComponent("reproducer.json"))
        let plain = try RunDirectory.load(dir.path)
        #expect(
            !ReportHTML(run: plain, series: ReportFiles.series(for: plain)).render().contains("Simulator reproducer"))
    }

    @Test func aCorruptReproducerFileIsAnErrorNamingIt() throws {
        let dir = try Support.copyOfRun("failed-shrunk")
        try "{\"note\": 1}".write(to: dir.appendingPathComponent("reproducer.json"), atomically: true, encoding: .utf8)
        #expect { try RunDirectory.load(dir.path) } throws: { error in
            "\(error)".contains("reproducer.json: not a reproducer summary")
        }
    }
}
