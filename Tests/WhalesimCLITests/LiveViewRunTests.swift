import Foundation
import Testing
import WhalesimTesting

/// `run --listen` (issue 46) with a real Prometheus (Debian's `prometheus`, installed by
/// scripts/setup --tests) scraping a live run every second: its HTTP API gives back the run's
/// acks exactly as the record counts them, and `histogram_quantile(0.99, ...)` of op→ack in the
/// bucket that holds the record's own p99. And what a bad `--listen` gets.
@Suite(.serialized) struct LiveViewRunTests {
    static let prometheus = ExternalProcess.which("prometheus")
    static let curl = ExternalProcess.which("curl")
    static let hint =
        "no prometheus or curl here (scripts/setup --tests installs both): the live scrape test is skipped"

    @Test(.enabled(if: prometheus != nil && curl != nil, "\(hint)"))
    func prometheusScrapesALiveRunAndAgreesWithItsRecord() async throws {
        let dir = try RunCommandTests().scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenario = try LogLinesAndStartAtTests().scenario(in: dir, seconds: 6)
        let reports = dir.appendingPathComponent("R")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: LogLinesAndStartAtTests.binary)
        process.arguments = ["run", scenario, "--listen", "127.0.0.1:0", "--quiet", "--report-dir", reports.path]
        process.currentDirectoryURL = RunCommandTests.root
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line says where: "live view: http://127.0.0.1:PORT/ (metrics: ...)".
        var first = Data()
        while !first.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            first.append(chunk)
        }
        let line = String(decoding: first, as: UTF8.self)
        let port = try #require(
            line.firstMatch(of: /live view: http:\/\/127\.0\.0\.1:(\d+)\//).map { Int($0.1)! }, "\(line)")
        let rest = Task.detached { out.fileHandleForReading.readDataToEndOfFile() }

        let prom = try startPrometheus(target: port, in: dir)
        defer {
            prom.terminate()
            prom.waitUntilExit()
        }
        let promPort = Int(prom.arguments!.last { $0.hasPrefix("--web.listen-address=") }!.split(separator: ":").last!)!
        process.waitUntilExit()
        let output = line + String(decoding: await rest.value, as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(output)")
        let record = try #require(
            (try? Data(contentsOf: reports.appendingPathComponent("latest/run.json"))).flatMap {
                try? JSONSerialization.jsonObject(with: $0) as? [String: Any]
            }, "\(output)")

        // What the record counts, exactly: every ack, as the last scrape (in the 2 s the view stays up after) saw it.
        let acked = try #require((record["counts"] as? [String: Any])?["acknowledged"] as? Int)
        #expect(acked > 0)
        let scraped = try await query(promPort, "max_over_time(whalesim_acks_total[10m])")
        #expect(scraped == Double(acked), "Prometheus has \(String(describing: scraped)) acks, the record \(acked)")

        // The record's p99 (from its own HdrHistogram) and Prometheus' estimate fall in one bucket.
        let pairs = try #require(try RecordFiles.histograms(record)["op_ack"])
        let total = pairs.reduce(0) { $0 + $1[1] }
        var seen: UInt64 = 0
        let rank = UInt64((Double(total) * 0.99).rounded(.up))
        let p99us = try #require(
            pairs.first {
                seen += $0[1]; return seen >= rank
            }?[0])
        let p99 = Double(p99us) / 1_000_000
        let bounds: [Double] = [
            0, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
        ]
        let bucket = try #require(bounds.indices.dropFirst().first { p99 <= bounds[$0] })
        let estimate = try #require(
            try await query(
                promPort, "histogram_quantile(0.99, sum by (le) (max_over_time(whalesim_op_ack_seconds_bucket[10m])))"))
        #expect(
            estimate > bounds[bucket - 1] && estimate <= bounds[bucket],
            "Prometheus' p99 \(estimate) s is not in (\(bounds[bucket - 1]), \(bounds[bucket])], the record's p99 \(p99) s"
        )
        // The run's labels ride on every series. `last_over_time` over a range, not the instant
        // series: once the run has exited, Prometheus' next failed scrape marks the series stale
        // and an instant query returns nothing (CI saw this once).
        var labelled = try await rawQuery(promPort, "last_over_time(whalesim_clients_connected[10m])")
        let asked = ContinuousClock.now
        while labelled.isEmpty && ContinuousClock.now < asked + .seconds(10) {
            try await Task.sleep(for: .milliseconds(300))
            labelled = try await rawQuery(promPort, "last_over_time(whalesim_clients_connected[10m])")
        }
        let labels = labelled.first?["metric"] as? [String: String]
        #expect(
            labels?["scenario"] == "live-lines" && labels?["seed"] == "7" && labels?["shard"] == "0/1", "\(labelled)")
    }

    static let chromium = ExternalProcess.chromium()
    static let python = ExternalProcess.python3()

    /// The dashboard of a real run in headless Chromium (Tests/External/dashboard_in_chromium.py),
    /// opened seconds into the load: its charts still start with the run (the endpoint sends the
    /// points so far); read again 2.5 s later, the figures move; intention shows what it found so
    /// far while convergence waits for the end; when the run ends on its own the page shows its
    /// verdict and links its report.
    @Test(
        .enabled(if: chromium != nil, "no Chromium here (scripts/setup --tests installs chromium): skipped"),
        .enabled(if: python != nil && curl != nil, "no python3 or curl here (scripts/setup --tests)"))
    func theDashboardOfALiveRunMovesAndEndsWithItsVerdict() async throws {
        let dir = try RunCommandTests().scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenario = try LogLinesAndStartAtTests().scenario(in: dir, seconds: 16)
        let reports = dir.appendingPathComponent("R")
        let (process, url, rest) = try launchListening([
            "run", scenario, "--listen", "127.0.0.1:0", "--quiet", "--report-dir", reports.path,
        ])
        defer { if process.isRunning { process.terminate() } }
        let line = "live view: \(url)\n"
        // Open the page once the load is under way (the setup's seconds show `starting`).
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let metrics = try await ExternalProcess.run(
                Self.curl!, ["-s", "--max-time", "2", url + "metrics"], timeout: .seconds(5))
            if let m = metrics.stdout.firstMatch(of: /whalesim_clients_connected\{[^}]*\} (\d+)/), Int(m.1)! > 0 {
                break
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        // A page opened late: what was before it must still be on its charts.
        try await Task.sleep(for: .seconds(4))
        let artifacts = ExternalProcess.packageRoot.appendingPathComponent(".build/test-artifacts/live-run")
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let script = ExternalProcess.packageRoot.appendingPathComponent("Tests/External/dashboard_in_chromium.py").path
        let read = try await ExternalProcess.run(
            Self.python!, [script, url, artifacts.path, "--browser", Self.chromium!, "--timeout", "60"],
            timeout: .seconds(90))
        process.waitUntilExit()
        let output = line + String(decoding: await rest.value, as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(output)")
        #expect(read.status == 0, "\(read.stdout)\(read.stderr)")
        let result = try #require(
            try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [String: Any],
            "\(read.stdout)\(read.stderr)")
        #expect((result["problems"] as? [String]) == [])
        let reads = try #require(result["reads"] as? [[String: Any]])
        try #require(reads.count == 3)
        let (one, two, final) = (reads[0], reads[1], reads[2])
        #expect(one["phase"] as? String == "running", "\(one)")
        for figure in ["elapsed", "acks"] {
            #expect(one[figure] as? String != two[figure] as? String, "\(figure) did not move: \(one) → \(two)")
        }
        #expect((two["p99"] as? String)?.contains("ms") == true, "p99: \(two["p99"] ?? "")")
        #expect((two["checkers"] as? [String])?.contains { $0.hasPrefix("convergencepending") } == true, "\(two)")
        #expect(
            (two["checkers"] as? [String])?.contains { $0.hasPrefix("intentionvalid") && $0.contains("so far") }
                == true,
            "\(two)")
        let from = try #require((one["chartFrom"] as? String).flatMap(Double.init), "\(one)")
        let elapsed = try #require((one["elapsed"] as? String).flatMap(Double.init), "\(one)")
        #expect(from <= 1 && elapsed >= 4, "the charts start at \(from) s, the page opened at \(elapsed) s")
        #expect(final["verdictShown"] as? Bool == true, "\(final)")
        #expect((final["verdict"] as? String)?.contains("PASS") == true, "\(final)")
        #expect((final["reportLink"] as? String)?.hasSuffix("/report.html") == true, "\(final)")
        #expect((final["checkers"] as? [String])?.contains { $0.hasPrefix("convergencevalid") } == true, "\(final)")
    }

    /// A server that applies a resent op twice (the embedded one with that catalog fault): the
    /// live view counts the intention checker's violations while the run still goes (phase
    /// `running`, before the verdict), and the run ends invalid with at least as many.
    @Test(.enabled(if: curl != nil, "no curl here (scripts/setup --tests installs it)"))
    func aFaultyServersViolationsShowWhileTheRunGoes() async throws {
        let dir = try RunCommandTests().scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("resend.yml")
        try ReproduceCommandTests.liveScenario(
            "live-resend-watched", clients: "{count: 8, documents: 1, protocol: 2}",
            mix: "{typing-burst: 30, paste: 10, reconnect: 20}", faults: "server-applies-resend-twice",
            duration: "8s"
        ).write(to: file, atomically: true, encoding: .utf8)
        let (process, url, rest) = try launchListening([
            "run", file.path, "--listen", "127.0.0.1:0", "--quiet", "--no-reproduce", "--report-dir",
            dir.appendingPathComponent("R").path,
        ])
        defer { if process.isRunning { process.terminate() } }
        var seenRunning = 0.0
        var seenFinal = 0.0
        while process.isRunning {
            let metrics = try await ExternalProcess.run(
                Self.curl!, ["-s", "--max-time", "2", url + "metrics"], timeout: .seconds(5))
            let line = metrics.stdout.split(separator: "\n").first {
                $0.hasPrefix("whalesim_checker_violations_total{") && $0.contains("checker=\"intention\"")
            }
            let count = line.flatMap { $0.split(separator: " ").last.flatMap { Double($0) } } ?? 0
            // /health says the phase: `running` until the final snapshot (`finished`) replaces the live one.
            let health = try await ExternalProcess.run(
                Self.curl!, ["-s", "--max-time", "2", url + "health"], timeout: .seconds(5))
            if health.stdout.contains("\"running\"") { seenRunning = max(seenRunning, count) }
            if health.stdout.contains("\"finished\"") { seenFinal = max(seenFinal, count) }
            try await Task.sleep(for: .milliseconds(250))
        }
        let output = String(decoding: await rest.value, as: UTF8.self)
        #expect(process.terminationStatus == 2, "\(output)")
        #expect(seenRunning > 0, "no intention violation was counted while the run went: \(output)")
        #expect(seenFinal == 0 || seenFinal >= seenRunning, "the counter went down: \(seenRunning) → \(seenFinal)")
    }

    /// Launches whalesim with `arguments` (which include `--listen 127.0.0.1:0`) and returns the
    /// process, its live view's URL, and a task holding the rest of its output.
    func launchListening(_ arguments: [String]) throws -> (Process, String, Task<Data, Never>) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: LogLinesAndStartAtTests.binary)
        process.arguments = arguments
        process.currentDirectoryURL = RunCommandTests.root
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var first = Data()
        while !first.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            first.append(chunk)
        }
        let line = String(decoding: first, as: UTF8.self)
        guard let url = line.firstMatch(of: /live view: (http:\/\/127\.0\.0\.1:\d+\/)/).map({ String($0.1) }) else {
            process.terminate()
            throw POSIXError(.EPROTO)
        }
        return (process, url, Task.detached { out.fileHandleForReading.readDataToEndOfFile() })
    }

    /// Every value of `family` the endpoint served while the command ran (scraped every 100 ms).
    func watch(_ url: String, _ family: String, while process: Process) async throws -> [Double] {
        var seen: [Double] = []
        while process.isRunning {
            let metrics = try await ExternalProcess.run(
                Self.curl!, ["-s", "--max-time", "2", url + "metrics"], timeout: .seconds(5))
            let total = metrics.stdout.split(separator: "\n").filter { $0.hasPrefix(family + "{") }
                .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
            if metrics.status == 0, metrics.stdout.contains(family), seen.last != total { seen.append(total) }
            try await Task.sleep(for: .milliseconds(100))
        }
        return seen
    }

    /// `simulate --seeds --listen` and `conform --listen` serve their progress: the seeds done and
    /// the cases by outcome climb while they run, and end on the totals they print.
    @Test(.enabled(if: curl != nil, "no curl here (scripts/setup --tests installs it)"))
    func simulateAndConformServeTheirProgress() async throws {
        let dir = try RunCommandTests().scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (simulate, simulateURL, simulateOut) = try launchListening([
            "simulate", "convergence-smoke", "--seeds", "300", "--listen", "127.0.0.1:0", "--report-dir", dir.path,
        ])
        let seeds = try await watch(simulateURL, "whalesim_seeds_total", while: simulate)
        let printed = String(decoding: await simulateOut.value, as: UTF8.self)
        #expect(simulate.terminationStatus == 0, "\(printed)")
        #expect(seeds.last == 300, "\(seeds)")
        #expect(seeds.contains { $0 > 0 && $0 < 300 }, "no value between 0 and 300 was served: \(seeds)")
        #expect(seeds == seeds.sorted(), "the count only climbs: \(seeds)")

        let (conform, conformURL, conformOut) = try launchListening([
            "conform", "--only", "ot", "--listen", "127.0.0.1:0", "--report-dir", dir.path,
        ])
        let cases = try await watch(conformURL, "whalesim_conform_cases_total", while: conform)
        let said = String(decoding: await conformOut.value, as: UTF8.self)
        #expect(conform.terminationStatus == 0, "\(said)")
        let total = try #require(said.firstMatch(of: /conform: (\d+) cases,/).map { Double($0.1)! }, "\(said)")
        #expect(cases.last == total, "\(cases) vs \(total) cases")
    }

    /// A taken port and a malformed address are refused before the load starts: exit 64 and why.
    @Test func aTakenOrMalformedListenAddressIsRefusedBeforeTheLoad() throws {
        let holder = try TakenPort()
        defer { holder.close() }
        let taken = try LogLinesAndStartAtTests().timed(["run", "live-demo", "--listen", "127.0.0.1:\(holder.port)"])
        #expect(taken.status == 64, "\(taken.all)")
        #expect(taken.stderr.contains("already in use"), "\(taken.stderr)")
        #expect(!taken.all.contains("whalesim run live-demo:"), "the load must not start")
        let malformed = try LogLinesAndStartAtTests().timed(["run", "live-demo", "--listen", "localhost"])
        #expect(malformed.status == 64, "\(malformed.all)")
        #expect(malformed.stderr.contains("--listen 'localhost' is malformed"), "\(malformed.stderr)")
    }

    func startPrometheus(target: Int, in dir: URL) throws -> Process {
        let config = dir.appendingPathComponent("prometheus.yml")
        try """
        global:
          scrape_interval: 1s
        scrape_configs:
          - job_name: whalesim-run
            scrape_interval: 1s
            static_configs:
              - targets: ['127.0.0.1:\(target)']
        """.write(to: config, atomically: true, encoding: .utf8)
        let holder = try TakenPort()
        let port = holder.port
        holder.close()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.prometheus!)
        process.arguments = [
            "--config.file=\(config.path)", "--storage.tsdb.path=\(dir.appendingPathComponent("data").path)",
            "--log.level=warn", "--web.listen-address=127.0.0.1:\(port)",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    func rawQuery(_ port: Int, _ expression: String) async throws -> [[String: Any]] {
        let out = try await ExternalProcess.run(
            Self.curl!,
            [
                "-s", "-G", "--max-time", "5", "http://127.0.0.1:\(port)/api/v1/query", "--data-urlencode",
                "query=\(expression)",
            ],
            timeout: .seconds(10))
        guard out.status == 0,
            let object = try? JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any],
            let data = object["data"] as? [String: Any], let result = data["result"] as? [[String: Any]]
        else { return [] }
        return result
    }

    func query(_ port: Int, _ expression: String) async throws -> Double? {
        // Prometheus may still be taking in its last scrapes: ask until it answers, for a while.
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            let result = try await rawQuery(port, expression)
            if let value = (result.first?["value"] as? [Any])?.last.flatMap({ $0 as? String }).flatMap(Double.init) {
                return value
            }
            try await Task.sleep(for: .milliseconds(300))
        }
        return nil
    }
}

/// A port held open by a listening socket (a taken address), or released to be reused.
final class TakenPort {
    let fd: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard descriptor >= 0, bound == 0, listen(descriptor, 1) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        fd = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(fd) }
}
