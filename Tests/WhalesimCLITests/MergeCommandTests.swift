import Foundation
import Testing

/// `whalesim run --shard i/N` in 4 local processes against one `whalesim serve`, then
/// `whalesim merge`: the merged histograms hold every shard's samples (counts add up exactly,
/// percentiles equal those of all samples together within HdrHistogram's 3 digits), the
/// merged run has exactly a single run's clients and notes, and the joined history is valid.
@Suite(.serialized) struct MergeCommandTests {
    static let root = RunCommandTests.root
    static let binary = root.appendingPathComponent(".build/debug/whalesim")

    static let scenario = """
        name: live-sharded
        mode: live
        seed: 11
        clients: {count: 24, documents: 3, protocol: 2}
        text: {alphabet: ascii, initial: "Notes:\\n"}
        mix: {typing-burst: 40, paste: 5, delete: 10, select: 5, same-position-insert: 10, cursor-move: 5, idle: 5}
        live:
          duration: 8s
          load: {profile: ramp, ramp-up: 2s}
          think-time: {distribution: exponential, mean: 300, max: 2000}
          keystroke: {distribution: uniform, min: 30, max: 80}
          import: {pages: 1}
          quiescence: 20s
        checkers: [convergence, intention, cursors, revisions, liveness]
        thresholds: ["convergence == valid", "intention == valid", "op_ack.count >= 10"]
        """

    func start(_ arguments: [String]) throws -> (Process, Pipe, Pipe) {
        let p = Process()
        p.executableURL = Self.binary
        p.arguments = arguments
        p.currentDirectoryURL = Self.root
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        return (p, out, err)
    }

    func finish(_ x: (Process, Pipe, Pipe)) -> (Int32, String) {
        let o = x.1.fileHandleForReading.readDataToEndOfFile(), e = x.2.fileHandleForReading.readDataToEndOfFile()
        x.0.waitUntilExit()
        return (x.0.terminationStatus, String(decoding: o, as: UTF8.self) + String(decoding: e, as: UTF8.self))
    }

    func json(_ path: URL) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: path)) as? [String: Any])
    }

    /// The value at percentile `p` of `[[value, count]]` pairs (HdrHistogram's definition).
    static func percentile(_ pairs: [[UInt64]], _ p: Double) -> Double {
        let sorted = pairs.sorted { $0[0] < $1[0] }
        let total = sorted.reduce(0) { $0 + $1[1] }
        let target = max(1, UInt64((p / 100 * Double(total)).rounded(.up)))
        var seen: UInt64 = 0
        for pair in sorted {
            seen += pair[1]
            if seen >= target { return Double(pair[0]) }
        }
        return Double(sorted.last?[0] ?? 0)
    }

    @Test func fourShardsMergeIntoOneValidRun() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("whalesim-merge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("sharded.yml")
        try Self.scenario.write(to: file, atomically: true, encoding: .utf8)

        // One server for every shard.
        let server = try ServeProcess(database: ":memory:")
        defer { server.stop() }
        let url = server.url

        let reports = dir.appendingPathComponent("Reports")
        let shards = try (0..<4).map { i in
            try start(["run", file.path, "--server", url, "--shard", "\(i)/4", "--report-dir", reports.path, "--quiet"])
        }
        for (i, s) in shards.enumerated() {
            let (status, output) = finish(s)
            #expect(status == 0, "shard \(i): \(output)")
            #expect(output.contains("shard \(i)/4 recorded"))
        }
        let scenarioDir = reports.appendingPathComponent("live-sharded")
        let shardDirs = try FileManager.default.contentsOfDirectory(atPath: scenarioDir.path).filter {
            $0.contains("-shard")
        }.sorted()
        #expect(shardDirs.count == 4)
        let (status, output) = finish(
            try start(
                ["merge"] + shardDirs.map { scenarioDir.appendingPathComponent($0).path } + [
                    "--report-dir", reports.path,
                ]))
        #expect(status == 0, "\(output)")
        for checker in ["convergence", "intention", "cursors", "revisions", "liveness"] {
            #expect(
                output.contains("\(checker.padding(toLength: 12, withPad: " ", startingAt: 0)) valid"),
                "\(checker): \(output)")
        }

        // The shards and the merge wrote the compact history (history.whr), which the merge read.
        let mergedPath = try #require(
            try FileManager.default.contentsOfDirectory(atPath: scenarioDir.path).first { $0.hasSuffix("-merged") })
        for name in shardDirs + [mergedPath] {
            let d = scenarioDir.appendingPathComponent(name)
            #expect(FileManager.default.fileExists(atPath: d.appendingPathComponent("history.whr").path), "\(name)")
            #expect(!FileManager.default.fileExists(atPath: d.appendingPathComponent("history.jsonl").path), "\(name)")
            let record = try json(d.appendingPathComponent("run.json"))
            let lines = try RecordFiles.history(d).split(separator: "\n")
            #expect(lines.count == (record["counts"] as? [String: Any])?["historyEvents"] as? Int, "\(name)")
        }

        // Histograms: the merge holds every shard's samples.
        let records = try shardDirs.map {
            try json(scenarioDir.appendingPathComponent($0).appendingPathComponent("run.json"))
        }
        // The shards start one by one; each takes its notes' whole history, so a shard that joined
        // after another's clients began typing still counts from revision 0 (CI once saw shard 1
        // begin at revision 3 and the merge refuse the set).
        for (i, record) in records.enumerated() {
            let bases = (record["documents"] as? [[String: Any]] ?? []).map { $0["baseRevision"] as? Int ?? 0 }
            #expect(bases.allSatisfy { $0 == 0 }, "shard \(i) began at revisions \(bases)")
        }
        let mergedDir = try #require(
            try FileManager.default.contentsOfDirectory(atPath: scenarioDir.path).first { $0.hasSuffix("-merged") })
        let merged = try json(scenarioDir.appendingPathComponent(mergedDir).appendingPathComponent("run.json"))
        #expect(merged["shards"] as? Int == 4)
        let mergedHistograms = try RecordFiles.histograms(merged)
        let shardHistograms = try records.map { try RecordFiles.histograms($0) }
        for name in ["op_ack", "op_remote_apply", "connect", "login"] {
            let all = shardHistograms.flatMap { $0[name] ?? [] }
            let got = try #require(mergedHistograms[name], "\(name) missing")
            #expect(got.reduce(0) { $0 + $1[1] } == all.reduce(0) { $0 + $1[1] }, "\(name): counts")
            for p in [50.0, 90.0, 99.0, 100.0] {
                let expected = Self.percentile(all, p), actual = Self.percentile(got, p)
                #expect(abs(expected - actual) <= max(1, expected * 0.001), "\(name) p\(p): \(actual) vs \(expected)")
            }
        }
        // Exactly the clients and notes of a single run: c001...c024 over 3 notes, 8 each.
        let documents = try #require(merged["documents"] as? [[String: Any]])
        #expect(documents.count == 3)
        let clients = documents.flatMap { ($0["clients"] as? [String]) ?? [] }.sorted()
        #expect(clients == (1...24).map { String(format: "c%03d", $0) })
        #expect(documents.allSatisfy { ($0["clients"] as? [String])?.count == 8 })
        let single = try #require(records.first?["documents"] as? [[String: Any]])
        #expect(
            single.map { $0["name"] as? String } == documents.map { $0["name"] as? String },
            "every shard edits the same notes")
    }

    @Test func mergeRefusesIncompleteOrMixedShards() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "whalesim-merge-bad-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        func shard(_ name: String, index: Int, count: Int, scenario: String = "s", seed: Int = 1) throws -> String {
            let d = dir.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
            let record: [String: Any] = [
                "schemaVersion": 2, "whalesimVersion": "0", "mode": "live", "scenario": scenario, "seed": seed,
                "timeUnit": "ms",
                "options": ["checkers": "convergence"], "verdict": "unknown", "verdicts": [], "thresholds": [],
                "metricThresholds": [],
                "counts": ["clients": 1], "historyHash": "0", "replayCommand": "x",
                "documents": [["name": "acc-1", "clients": ["c001"]]],
                "series": [
                    "unit": "ms", "bucketWidth": 1000, "bucketStarts": [0], "latency": [:], "counters": [:],
                    "connected": [1], "errors": [:], "faultWindows": [],
                ],
                "histograms": [:], "errors": 0, "attempts": 0, "notes": [], "shard": ["index": index, "count": count],
            ]
            try JSONSerialization.data(withJSONObject: record).write(to: d.appendingPathComponent("run.json"))
            try Data().write(to: d.appendingPathComponent("history.jsonl"))
            return d.path
        }
        let a = try shard("a", index: 0, count: 3), b = try shard("b", index: 1, count: 3),
            c = try shard("c", index: 1, count: 3)
        let other = try shard("d", index: 2, count: 3, seed: 2)
        let missing = finish(try start(["merge", a, b, "--report-dir", dir.path]))
        #expect(missing.0 == 64)
        #expect(missing.1.contains("missing shard 2/3"), "\(missing.1)")
        let twice = finish(try start(["merge", a, b, c, "--report-dir", dir.path]))
        #expect(twice.0 == 64)
        #expect(twice.1.contains("are both shard 1/3"), "\(twice.1)")
        let mixed = finish(try start(["merge", a, b, other, "--report-dir", dir.path]))
        #expect(mixed.0 == 64)
        #expect(mixed.1.contains("seed 2, but"), "\(mixed.1)")
        let nothing = finish(try start(["merge", dir.appendingPathComponent("nope").path]))
        #expect(nothing.0 == 64)
        #expect(nothing.1.contains("no run.json"))
    }
}
