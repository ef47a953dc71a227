import Foundation
import Testing
import WhaleRecord
@testable import WhaleReports

/// A failed live run (series and documents in run.json) is loaded with only its end state in
/// memory; its timeline reads the history file again in passes, and renders the very page the
/// whole history in memory renders.
@Suite struct FailedLiveRecordTests {
    func line(_ t: Int, _ type: String, _ fields: [String: HistoryLine.FieldValue] = [:]) -> HistoryLine {
        HistoryLine(t: t, type: type, fields: fields)
    }

    /// 4,000 rows of c02 to c09 coming and going, then TimelineTests' two-client divergence: c01
    /// applies c00's op while its own is in flight (row 4,007), and ends with another text.
    func history() -> [HistoryLine] {
        var lines: [HistoryLine] = []
        for i in 0..<2_000 {
            let c = "c0\(i % 8 + 2)"
            lines.append(line(i, "connect", ["client": .string(c)]))
            lines.append(line(i, "disconnect", ["client": .string(c), "cause": .string("nemesis")]))
        }
        let t = 2_000
        lines += [
            line(t + 1, "invoke", ["client": .string("c00"), "opId": .string("c00:1"), "baseRevision": .int(0)]),
            line(t + 1, "invoke", ["client": .string("c01"), "opId": .string("c01:1"), "baseRevision": .int(0)]),
            line(
                t + 2, "serverApply",
                ["client": .string("c00"), "document": .string("d"), "opId": .string("c00:1"), "revision": .int(1)]),
            line(
                t + 2, "serverApply",
                ["client": .string("c01"), "document": .string("d"), "opId": .string("c01:1"), "revision": .int(2)]),
            line(t + 3, "ack", ["client": .string("c00"), "opId": .string("c00:1"), "revision": .int(1)]),
            line(t + 3, "clientRevision", ["client": .string("c00"), "revision": .int(1)]),
            line(t + 3, "clientRevision", ["client": .string("c01"), "revision": .int(1)]),
            line(t + 4, "ack", ["client": .string("c01"), "opId": .string("c01:1"), "revision": .int(2)]),
            line(t + 4, "clientRevision", ["client": .string("c01"), "revision": .int(2)]),
        ]
        for i in 0..<1_000 { lines.append(line(t + 5 + i, "connect", ["client": .string("c0\(i % 8 + 2)")])) }
        lines += [
            line(t + 1_005, "quiescence", ["reached": .bool(true), "ticksAfterHeal": .int(3)]),
            line(
                t + 1_005, "serverFinal",
                ["document": .string("d"), "text": .string("ab"), "revision": .int(2), "historyCount": .int(2)]),
            line(
                t + 1_005, "clientFinal",
                [
                    "client": .string("c00"), "text": .string("ab"), "revision": .int(2), "pendingOps": .int(0),
                    "connected": .bool(true),
                ]),
            line(
                t + 1_005, "clientFinal",
                [
                    "client": .string("c01"), "text": .string("ba"), "revision": .int(2), "pendingOps": .int(0),
                    "connected": .bool(true),
                ]),
        ]
        return lines
    }

    func record(evidence: [String], history: [HistoryLine]) -> RunRecordFile {
        var record = ReportBoundsTests.record(verdict: "invalid", scenario: "failed-live", evidence: evidence)
        record.timeUnit = "ms"
        record.documents = [.init(name: "d", clients: (0...9).map { "c0\($0)" })]
        record.series = SeriesDerivation.derive(history, documents: record.documents, unit: "ms")
        return record
    }

    /// Writes run.json and history.whr; returns the directory.
    func write(_ record: RunRecordFile, _ history: [HistoryLine]) throws -> URL {
        let dir = try Support.temporaryDirectory()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(record).write(to: dir.appendingPathComponent("run.json"))
        let json = try history.map { l -> String in
            var object: [String: Any] = ["t": l.t, "type": l.type]
            for (key, value) in l.fields {
                switch value {
                case .int(let n): object[key] = n
                case .string(let s): object[key] = s
                case .bool(let b): object[key] = b
                case .null: object[key] = NSNull()
                }
            }
            return String(
                decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
        try HistoryFiles.write(json, to: dir.appendingPathComponent("history.whr").path)
        return dir
    }

    @Test(arguments: [
        (
            ["c01 diverged from the server on d"], 4_007,
            "c01, whose text diverged, applies a remote op while its own is in flight"
        ),
        (["t=2003 c00's ack came late"], 4_005, "the earliest event the evidence names"),
        (["c01:1 applied twice on d"], 4_002, "the earliest event the evidence names"),
    ]) func theTimelineFromTheFileIsTheOneFromMemory(evidence: [String], row: Int, why: String) throws {
        let history = history()
        let record = record(evidence: evidence, history: history)
        let dir = try write(record, history)
        defer { try? FileManager.default.removeItem(at: dir) }

        let loaded = try RunDirectory.load(dir.path)
        #expect(loaded.historyIsSummary)
        #expect(loaded.history.map(\.type) == ["quiescence", "serverFinal", "clientFinal", "clientFinal"])
        #expect(loaded.historyLineCount == history.count)
        let inMemory = RunDirectory(path: dir.path, record: record, history: history)

        let fromFile = ReportHTML(run: loaded, series: ReportFiles.series(for: loaded)).render()
        let fromMemory = ReportHTML(run: inMemory, series: ReportFiles.series(for: inMemory)).render()
        #expect(fromFile == fromMemory)
        #expect(fromFile.contains("First divergence (highlighted): row \(row)"))
        #expect(fromFile.contains(html(why)))
        #expect(fromFile.contains("Rows \(row - 1_000)–\(row + 999) of \(history.count) shown"))
        #expect(fromFile.components(separatedBy: "<tr class=\"hit\">").count == 2)
        #expect(fromFile.contains("<td class=\"remote\">now at r1</td>"))
        #expect(JUnitXML(run: loaded).render() == JUnitXML(run: inMemory).render())
    }

    /// Without the history file, the run does not load; a history changed to garbage after
    /// loading gets a paragraph saying so in place of the timeline, not a crash.
    @Test func aHistoryThatGoesAwayIsSaid() throws {
        let history = history()
        let dir = try write(record(evidence: [], history: history), history)
        defer { try? FileManager.default.removeItem(at: dir) }
        let loaded = try RunDirectory.load(dir.path)
        try Data("{\"t\":1,\"type\":\"connect\"}\nnot json\n".utf8).write(to: dir.appendingPathComponent("history.whr"))
        let page = ReportHTML(run: loaded, series: ReportFiles.series(for: loaded)).render()
        #expect(page.contains("The history could not be read again:"))
        try FileManager.default.removeItem(at: dir.appendingPathComponent("history.whr"))
        #expect(throws: ReportError.self) { try RunDirectory.load(dir.path) }
    }
}
