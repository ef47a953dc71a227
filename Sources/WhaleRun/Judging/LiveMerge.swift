import Foundation
import WhaleRecord
import WhaleReports
import WhaleSim

/// Combines the run directories of `whalesim run --shard i/N` into one run: histograms merged
/// exactly (bucket counts added), per-second series added up, the shards' histories lined up by
/// their wall-clock starts and joined into one history that the checkers judge whole, and the
/// thresholds judged on the merged figures.
public enum LiveMerge {
    /// A shard's directory as read from disk.
    struct Shard {
        var dir: String
        var record: LiveRunRecord
        var lines: [NamedHistoryLine]
    }

    public struct Merged: Sendable {
        public var record: LiveRunRecord
        public var history: History
        public var result: LiveRunResult
    }

    public static func merge(_ dirs: [String], scenario: Scenario) throws(RecordError) -> Merged {
        var shards = try readShards(dirs)
        try check(shards)
        shards.sort { $0.record.shard!.index < $1.record.shard!.index }
        let t0 = shards.compactMap(\.record.epochStartMs).min() ?? 0
        func offset(_ s: Shard) -> Int { Int((s.record.epochStartMs ?? t0) - t0) }
        let history = mergedHistory(shards, scenario: scenario, offset: offset)
        let result = try mergedResult(shards, history: history, scenario: scenario, t0: t0, offset: offset)
        let record = mergedRecord(shards, result: result, scenario: scenario, t0: t0)
        return Merged(record: record, history: history, result: result)
    }

    /// Each directory's run record and history, in the order given.
    static func readShards(_ dirs: [String]) throws(RecordError) -> [Shard] {
        var shards: [Shard] = []
        for dir in dirs {
            let runJSON = (dir as NSString).appendingPathComponent("run.json")
            guard let data = FileManager.default.contents(atPath: runJSON) else {
                throw RecordError("\(dir): no run.json")
            }
            let record: LiveRunRecord
            do { record = try JSONDecoder().decode(LiveRunRecord.self, from: data) } catch {
                throw RecordError("\(runJSON): not a live run record: \(error)")
            }
            // A shard's history in either form: history.whr, or the history.jsonl of an older runner.
            let lines: [NamedHistoryLine]
            do { lines = try RecordHistory.readNamed(try HistoryFiles.history(in: dir)) } catch let e as RecordFileError
            {
                throw RecordError(e.message)
            } catch let e as HistoryDecodeError {
                throw RecordError(e.message)
            } catch {
                throw RecordError("\(dir): \(error)")
            }
            shards.append(Shard(dir: dir, record: record, lines: lines))
        }
        return shards
    }

    /// The shards' histories on one time axis, joined: the clients' lines from every shard, the
    /// server's from one, quiescence and traffic summed up at the end.
    static func mergedHistory(_ shards: [Shard], scenario: Scenario, offset: (Shard) -> Int) -> History {
        // Names: every shard's clients, documents as the first shard lists them.
        let documents = shards[0].record.documents
        let documentNames = documents.map(\.name)
        var clientDocument: [String: Int] = [:]
        for s in shards {
            for (d, doc) in s.record.documents.enumerated() { for c in doc.clients { clientDocument[c] = d } }
        }
        let clientNames = clientDocument.keys.sorted()
        let clientIndex = Dictionary(uniqueKeysWithValues: clientNames.enumerated().map { ($1, $0) })
        let documentIndex = Dictionary(uniqueKeysWithValues: documentNames.enumerated().map { ($1, $0) })

        // The server's side comes from the shard whose final read came last (after every shard's
        // clients had stopped); its ops are attributed by op id ("c017:5" is c017's).
        let primary = shards.indices.max { a, b in
            let fa = (shards[a].lines.last { $0.type == "serverFinal" }?.time ?? 0) + offset(shards[a])
            let fb = (shards[b].lines.last { $0.type == "serverFinal" }?.time ?? 0) + offset(shards[b])
            return fa < fb
        }!
        let serverTypes: Set<String> = ["serverApply", "serverRevision", "serverFinal", "heal"]
        var merged: [(time: Int, shard: Int, seq: Int, line: NamedHistoryLine)] = []
        var quiescence: (reached: Bool, ticks: Int) = (true, 0)
        var traffic = (messages: 0, edits: 0)
        for (k, s) in shards.enumerated() {
            for (i, line) in s.lines.enumerated() {
                if serverTypes.contains(line.type), k != primary { continue }
                if line.type == "quiescence" || line.type == "traffic" { continue }
                merged.append((line.time + offset(s), k, i, line))
            }
            for line in s.lines {
                if line.type == "quiescence", case .quiescence(let r, let t)? = line.event({ _ in 0 }, { _ in 0 }) {
                    quiescence = (quiescence.reached && r, max(quiescence.ticks, t))
                }
                if line.type == "traffic", case .traffic(let m, let e, _)? = line.event({ _ in 0 }, { _ in 0 }) {
                    traffic.messages += m
                    traffic.edits += e
                }
            }
        }
        merged.sort { ($0.time, $0.shard, $0.seq) < ($1.time, $1.shard, $1.seq) }
        var history = History(
            clientNames: clientNames, clientDocuments: clientNames.map { clientDocument[$0]! },
            documentNames: documentNames,
            initialTexts: documents.map { $0.initialText ?? "" }, protocolVersion: scenario.protocolVersion)
        var endTime = 0
        for m in merged {
            var line = m.line
            if line.type == "serverApply", let opId = opIdAuthor(m.line) { line.clients = [opId] }
            let author = line.clients.first
            guard
                let event = line.event(
                    { name in
                        if line.type == "serverApply", let author { return clientIndex[author] ?? 0 }
                        return clientIndex[name] ?? 0
                    }, { documentIndex[$0] ?? 0 })
            else { continue }
            history.append(event, at: m.time)
            endTime = max(endTime, m.time)
        }
        history.append(.quiescence(reached: quiescence.reached, ticksAfterHeal: quiescence.ticks), at: endTime)
        history.append(
            .traffic(messages: traffic.messages, edits: traffic.edits, clients: clientNames.count), at: endTime)
        return history
    }

    /// The merged history judged, with the merged figures and the thresholds judged on them.
    static func mergedResult(
        _ shards: [Shard], history: History, scenario: Scenario, t0: Int64,
        offset: (Shard) -> Int
    ) throws(RecordError) -> LiveRunResult {
        var totals: [String: LatencyHistogram] = [:]
        for s in shards {
            for (name, pairs) in s.record.histograms {
                do { totals[name, default: LatencyHistogram()].add(try LatencyHistogram(encoded: pairs)) } catch {
                    throw RecordError("\(s.dir): histogram \(name): \(error.message)")
                }
            }
        }
        let (series, buckets) = try mergedSeries(shards, offset: offset)
        let results = LiveJudge.checks(scenario, history)
        let errors = shards.map(\.record.errors).reduce(0, +), attempts = shards.map(\.record.attempts).reduce(0, +)
        var figures = LiveJudge.Figures(totals: totals, errors: errors, attempts: attempts)
        for (name, list) in buckets {
            figures.buckets[name] = Dictionary(
                uniqueKeysWithValues: list.enumerated().filter { $0.element.count > 0 }.map { ($0.offset, $0.element) })
        }
        if let first = shards.first, let w = first.record.steadyWindow, w.count == 2 {
            figures.steady = (w[0] + offset(first))..<(w[1] + offset(first))
        }
        figures.lagBoundMs = shards.first?.record.lagBoundMs ?? figures.lagBoundMs
        figures.excluded = LiveJudge.excludedWindows(series.faultWindows)
        // Each shard's machine was contended on its own; any shard's contended second is left out.
        figures.contended = series.faultWindows.filter { $0.kind == "contended" }
        if let bound = shards.compactMap({ $0.record.series.machine?.foreignBound }).first {
            figures.contentionRule = MachineLoad(foreignBound: bound).contentionRule
        }
        let metricOutcomes = LiveJudge.metricThresholds(scenario, figures)
        let verdict = Checkers.merged(results)
        var result = LiveRunResult(
            scenario: scenario, history: history, results: results, verdict: verdict,
            thresholds: LiveJudge.thresholds(scenario, results),
            metricThresholds: metricOutcomes, histograms: totals, series: series, errors: errors, attempts: attempts,
            clientsStarted: shards.map { $0.record.counts["clients"] ?? 0 }.reduce(0, +),
            aborted: shards.compactMap(\.record.aborted).first,
            durationMs: series.end,
            notes: shards.flatMap { s in s.record.notes.map { "shard \(s.record.shard!.index): \($0)" } })
        result.epochStartMs = t0
        return result
    }

    /// The merged run's record: one run of the scenario, replayed by running the shards again and merging.
    static func mergedRecord(_ shards: [Shard], result: LiveRunResult, scenario: Scenario, t0: Int64) -> LiveRunRecord {
        var options = LiveRunOptions(
            scenario: scenario, scenarioRef: scenario.name, seed: shards[0].record.seed,
            fixtures: URL(fileURLWithPath: "Fixtures"), reportsRoot: "")
        options.shard = nil
        var record = LiveRunRecord(
            result: result, options: options, startedAt: Date(timeIntervalSince1970: Double(t0) / 1000),
            wallSeconds: shards.compactMap(\.record.wallSeconds).max() ?? 0)
        record.shards = shards.count
        record.timerGridMs = shards.first?.record.timerGridMs
        record.replayCommand =
            shards.map(\.record.replayCommand).joined(separator: " & ") + "; "
            + ShellCommand.line(["whalesim", "merge"] + shards.map(\.dir))
        record.salesforce = nil
        record.seriesHistograms = nil
        return record
    }

    /// Every directory is a shard of one scenario and seed, each slice exactly once.
    static func check(_ shards: [Shard]) throws(RecordError) {
        guard let first = shards.first else { throw RecordError("no run directories given") }
        var seen: [Int: String] = [:]
        for s in shards {
            guard let shard = s.record.shard else {
                throw RecordError("\(s.dir): not a shard (run it with --shard i/N)")
            }
            guard s.record.scenario == first.record.scenario, s.record.seed == first.record.seed else {
                throw RecordError(
                    "\(s.dir): scenario \(s.record.scenario) seed \(s.record.seed), but \(first.dir) is \(first.record.scenario) seed \(first.record.seed)"
                )
            }
            guard shard.count == first.record.shard?.count else {
                throw RecordError(
                    "\(s.dir): shard of \(shard.count), but \(first.dir) is of \(first.record.shard?.count ?? 0)")
            }
            if let other = seen[shard.index] {
                throw RecordError("\(s.dir) and \(other) are both shard \(shard.index)/\(shard.count)")
            }
            seen[shard.index] = s.dir
            // Each shard's history counts revisions from where its notes were when it began:
            // only shards that began at the same revisions share one axis.
            for (d, doc) in s.record.documents.enumerated() where d < first.record.documents.count {
                let mine = doc.baseRevision ?? 0, theirs = first.record.documents[d].baseRevision ?? 0
                if mine != theirs {
                    throw RecordError(
                        "\(s.dir) began with \(doc.name) at revision \(mine), \(first.dir) at \(theirs): start the shards together, against notes no one else is editing"
                    )
                }
            }
        }
        let n = first.record.shard!.count
        let missing = (0..<n).filter { seen[$0] == nil }
        if !missing.isEmpty {
            throw RecordError(
                "missing shard\(missing.count > 1 ? "s" : "") \(missing.map { "\($0)/\(n)" }.joined(separator: ", "))")
        }
    }

    /// The client of an applied op, from its id (`c017:5`, `c017.2:m3`).
    static func opIdAuthor(_ line: NamedHistoryLine) -> String? {
        guard case .serverApply(_, _, let opId, _, _)? = line.event({ _ in 0 }, { _ in 0 }) else { return nil }
        guard let colon = opId.firstIndex(of: ":") else { return nil }
        let owner = opId[..<colon]
        return String(owner.split(separator: ".").first ?? owner)
    }

    /// Series added up bucket by bucket on the shared time axis; latency percentiles from the
    /// merged per-bucket histograms.
    static func mergedSeries(_ shards: [Shard], offset: (Shard) -> Int) throws(RecordError) -> (
        RunSeries, [String: [LatencyHistogram]]
    ) {
        let width = shards[0].record.series.bucketWidth
        let end = shards.map { offset($0) + $0.record.series.end }.max() ?? width
        let n = max(1, (end + width - 1) / width)
        var counters: [String: [Int]] = [:], errors: [String: [Int]] = [:]
        var connected = Array(repeating: 0, count: n)
        var buckets: [String: [LatencyHistogram]] = [:]
        var windows: [FaultWindow] = []
        for s in shards {
            let shift = offset(s) / width
            for (k, v) in s.record.series.counters {
                for (i, x) in v.enumerated() where i + shift < n {
                    counters[k, default: Array(repeating: 0, count: n)][i + shift] += x
                }
            }
            for (k, v) in s.record.series.errors {
                for (i, x) in v.enumerated() where i + shift < n {
                    errors[k, default: Array(repeating: 0, count: n)][i + shift] += x
                }
            }
            for (i, x) in s.record.series.connected.enumerated() where i + shift < n { connected[i + shift] += x }
            for (name, perBucket) in s.record.seriesHistograms ?? [:] {
                for (i, pairs) in perBucket.enumerated() where i + shift < n && !pairs.isEmpty {
                    var list = buckets[name] ?? Array(repeating: LatencyHistogram(), count: n)
                    do { list[i + shift].add(try LatencyHistogram(encoded: pairs)) } catch {
                        throw RecordError("\(s.dir): seriesHistograms \(name): \(error.message)")
                    }
                    buckets[name] = list
                }
            }
            windows += s.record.series.faultWindows.map { w in
                FaultWindow(
                    kind: w.kind, label: "shard \(s.record.shard!.index): \(w.label)", start: w.start + offset(s),
                    end: w.end + offset(s))
            }
        }
        var latency: [String: LatencySeries] = [:]
        for (name, list) in buckets {
            var total = LatencyHistogram()
            for h in list { total.add(h) }
            latency[name] = LatencySeries(
                p50: list.map { $0.percentileMs(50) }, p90: list.map { $0.percentileMs(90) },
                p99: list.map { $0.percentileMs(99) },
                max: list.map(\.maxMs),
                overall: LatencyFigures(
                    count: total.count, p50: total.percentileMs(50), p90: total.percentileMs(90),
                    p99: total.percentileMs(99), max: total.maxMs))
        }
        return (
            RunSeries(
                unit: "ms", bucketWidth: width, bucketStarts: (0..<n).map { $0 * width }, latency: latency,
                counters: counters,
                connected: connected, errors: errors,
                faultWindows: windows.sorted { ($0.start, $0.label) < ($1.start, $1.label) }), buckets
        )
    }
}

extension LiveMerge {
    /// The scenario as far as judging needs it (checkers, thresholds, protocol), rebuilt from a
    /// shard's record so `merge` needs nothing but the directories.
    public static func scenario(from dir: String) throws(RecordError) -> Scenario {
        let runJSON = (dir as NSString).appendingPathComponent("run.json")
        guard let data = FileManager.default.contents(atPath: runJSON) else { throw RecordError("\(dir): no run.json") }
        let r: LiveRunRecord
        do { r = try JSONDecoder().decode(LiveRunRecord.self, from: data) } catch {
            throw RecordError("\(runJSON): not a live run record: \(error)")
        }
        return scenario(from: r)
    }

    /// The scenario a decoded live run record describes (see ``scenario(from:)-(String)``).
    public static func scenario(from r: LiveRunRecord) -> Scenario {
        var s = Scenario(name: r.scenario)
        s.mode = .live
        s.seed = r.seed
        s.protocolVersion = Int(r.options["protocol"] ?? "2") ?? 2
        s.clients = Int(r.options["clients"] ?? "") ?? s.clients
        s.documents = Int(r.options["documents"] ?? "") ?? s.documents
        s.checkers = (r.options["checkers"] ?? "").split(separator: ",").compactMap {
            CheckerName(rawValue: $0.trimmingCharacters(in: .whitespaces))
        }
        s.thresholds = r.thresholds.compactMap { Scenario.parseThresholdText($0.threshold) }
        s.metricThresholds = r.metricThresholds.compactMap { try? MetricThreshold.parse($0.threshold).get() }
        return s
    }
}
