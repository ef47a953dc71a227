import ArgumentParser
import WhaleTelemetry
import NIOConcurrencyHelpers
import Foundation
import WhaleConform
import WhaleProtocol
import WhaleReports
import WhaleEmbedded

/// `whalesim conform`: the named conformance cases (docs/conformance.md) against a
/// Whaler-compatible server, or against the reference server it starts itself.
///
/// ```
/// whalesim conform --server http://127.0.0.1:8080 --protocol 2 --only 'ot.*'
/// whalesim conform --fault utf8-length-transform --expect-fail known.txt
/// ```
struct ConformCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conform",
        abstract: "Run the named conformance cases against a Whaler-compatible server.",
        discussion: """
            Prints a line per case (pass, FAIL with the evidence, n/a), a summary, and writes \
            junit.xml and report.html. Without --server it starts the reference server itself \
            (whalesim serve on a fresh SQLite file), which also runs the durability cases. \
            Exit 0 when every case passed or failed as --expect-fail lists, 2 on another failure, \
            64 on bad usage.

            Examples:
              whalesim conform --list
              whalesim conform --only ot
              whalesim conform --server http://127.0.0.1:8080 --protocol 1
            """)

    @Option(help: "The server's base URL (http://host:port); default: start the reference server.")
    var server: String?

    @Option(
        name: .customLong("protocol"),
        help: "1: the original protocol only (protocol-2 cases say not applicable); 2: whalesim's extensions.")
    var protocolVersion: Int?

    @Option(help: "Cases to run: comma-separated globs over ids, or id prefixes (ot, security.token).")
    var only: String?

    @Option(
        name: .customLong("expect-fail"),
        help: "File of case ids known to fail, one a line (# comments): they do not fail the run.")
    var expectFail: String?

    @Option(
        help: "Where junit.xml and report.html go (default: Reports/conform/<time>/, linked as Reports/conform/latest)."
    )
    var out: String?

    @Option(name: .customLong("report-dir"), help: "The Reports root for the default --out.")
    var reportDir = "Reports"

    @Option(
        name: .customLong("restart-command"), help: "Shell command that kills and restarts --server (durability cases)."
    )
    var restartCommand: String?

    @Option(
        name: .customLong("jwt-secret"),
        help: "The server's HS256 key, to sign an expired token (default: $WHALESIM_JWT_SECRET).")
    var jwtSecret: String?

    @Option(
        help:
            "Sign in as EMAIL:PASSWORD, two of one organization then one of another (3 times; default the seed's ann, bo, dee)."
    )
    var user: [String] = []

    @Option(
        name: .customLong("max-message-bytes"),
        help: "The server's message size limit (the too-large case sends half as much again).")
    var maxMessageBytes = 64 * 1024

    @Option(
        name: .customLong("max-messages-per-second"),
        help:
            "The server's rate limit per socket, with bursts of twice that (serve's --max-messages-per-second): the rate edge case sends exactly the burst, then just over it."
    )
    var maxMessagesPerSecond = 500

    // Unconditional, so `-1` is read as the value (and refused below), not as an option.
    @Option(
        name: .customLong("token-leeway"), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds past a token's expiry the server may still accept it (clock skew); the expired-just-now case signs one expired this long ago plus 30 s.",
            valueName: "seconds"))
    var tokenLeeway = 30

    @Option(
        name: .customLong("slow-reader-bytes"),
        help: "Bytes of ops the slow-reader case writes while its reader is held.")
    var slowReaderBytes = 6_000_000

    @Option(name: .customLong("timeout-ms"), help: "How long a case waits for a frame it expects.")
    var timeoutMs = 5000

    @Option(help: "Embedded server only: switch on a server-side catalog fault (repeatable), as serve --fault does.")
    var fault: [String] = []

    @Flag(help: "Embedded server only: serve the original protocol only (serve --compatibility); implies --protocol 1.")
    var compatibility = false

    @Option(
        help:
            "The fixtures directory (whaler/seed.json) for the embedded server; default ./Fixtures, else Fixtures/ beside the binary, else the built-in copies."
    )
    var fixtures: String?

    @Option(
        help: ArgumentHelp(
            "Serve the suite's progress live on HOST:PORT while it runs: /metrics (whalesim_conform_cases_total by outcome), a dashboard at /, /events, /health. Port 0 picks a free one.",
            valueName: "HOST:PORT"))
    var listen: String?

    @Flag(name: .customLong("list"), help: "List the case ids and what each checks, then exit.")
    var list = false

    @Flag(name: .customLong("list-markdown"), help: "Print docs/conformance.md (generated from the suite), then exit.")
    var listMarkdown = false

    func run() async throws {
        if listMarkdown { print(ConformCatalogDoc.markdown(), terminator: ""); return }
        if list {
            for c in ConformSuite.matching(only) { print("\(c.id)\t\(c.checks)") }
            return
        }
        defer { BuiltinFixtures.cleanUp() }
        let plan: Plan
        do { plan = try makePlan() } catch let e as BadInput { throw e.exit() }

        let view: ProgressView?
        if let listen {
            let labels = RunLabels(
                scenario: "conform", seed: "0",
                runID: "conform-" + String(Int64(Date().timeIntervalSince1970 * 1000), radix: 36))
            do {
                view = try await ProgressView.start(
                    listen, labels: labels, title: "conform (\(plan.cases.count) cases)", phase: "conforming",
                    families: [MetricCatalog.conformCases])
            } catch {
                printError("whalesim: \(error)")
                throw ExitCode(error.exitCode)
            }
            printLine(view!.server.listeningNote)
        } else {
            view = nil
        }

        var embedded: EmbeddedTarget?
        var target: ConformTarget
        if let url = server {
            target = ConformTarget(baseURL: url, protocolVersion: plan.version)
            if let restartCommand {
                target.restarter = CommandRestarter(command: restartCommand, baseURL: target.baseURL)
            }
            if let secret = jwtSecret ?? ProcessInfo.processInfo.environment["WHALESIM_JWT_SECRET"] {
                target.jwtSecret = Data(secret.utf8)
            }
        } else {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "whalesim-conform-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            do {
                let started = try await EmbeddedTarget.start(
                    directory: directory, fixtures: plan.seed,
                    faults: plan.faults, compatibility: compatibility, executable: ChildServer.selfExecutable)
                embedded = started
                target = started.target
                target.protocolVersion = plan.version
            } catch {
                throw BadInput("the embedded server did not start: \(error)").exit()
            }
        }
        if plan.logins.count == 3 {
            (target.member, target.colleague, target.outsider) = (plan.logins[0], plan.logins[1], plan.logins[2])
        }
        target.maxMessageBytes = maxMessageBytes
        target.timeout = .milliseconds(timeoutMs)
        target.slowReaderBytes = slowReaderBytes
        target.maxMessagesPerSecond = maxMessagesPerSecond
        target.tokenLeewaySeconds = tokenLeeway

        let where_ =
            server
            ?? "the embedded reference server\(plan.faults.isEmpty ? "" : " with \(plan.faults.map(\.rawValue).joined(separator: ", "))")\(compatibility ? " (compatibility)" : "")"
        print(
            "conform: \(plan.cases.count) cases against \(where_) (\(target.baseURL)), protocol \(target.protocolVersion.rawValue)"
        )
        let outcomes = NIOLockedValueBox<[String: Int]>([:])
        let results = await ConformSuite.run(target, cases: plan.cases, expected: plan.expected) { result in
            print(ConformSummary.line(for: result))
            guard let view else { return }
            let outcome = Self.outcome(result)
            let counts = outcomes.withLockedValue { counts in
                counts[outcome, default: 0] += 1
                return counts
            }
            view.update { snapshot in
                for key in counts.keys.sorted() {
                    snapshot.set(MetricCatalog.conformCases, labels: ["outcome": key], counts[key]!)
                }
            }
        }
        await embedded?.stop()
        let summary = ConformSummary(results)
        let directory: String
        do {
            directory = try outputDirectory()
            try ConformReportFiles.write(
                summary, target: server ?? "embedded reference server",
                protocolVersion: target.protocolVersion.rawValue, to: directory)
        } catch {
            printError("whalesim: could not write the report: \(error)")
            throw ExitCode(2)
        }
        print(summary.line)
        for r in summary.unexpectedPasses {
            print("NOTE: \(r.id) is listed in --expect-fail but passes now: take it off the list")
        }
        print("report: \(directory)/report.html, \(directory)/junit.xml")
        if let view {
            await view.finish(
                verdict: summary.exitCode == 0 ? "pass" : "fail", note: summary.line,
                reportURL: "file://" + URL(fileURLWithPath: directory).appendingPathComponent("report.html").path)
        }
        throw ExitCode(summary.exitCode)
    }

    /// A case's outcome as the live view counts it: pass, fail, expected-fail, not-applicable.
    static func outcome(_ r: ConformResult) -> String {
        switch r.verdict {
        case .pass: "pass"
        case .fail: r.expectedToFail ? "expected-fail" : "fail"
        case .notApplicable: "not-applicable"
        }
    }

    struct Plan {
        var version: ProtocolVersion
        var cases: [ConformCase]
        var expected: Set<String>
        var faults: FaultSet
        var logins: [ConformTarget.Login]
        /// The embedded server's seed (found as `run` finds it, so a copied binary works anywhere).
        var seed: URL
    }

    func makePlan() throws -> Plan {
        var problems: [String] = []
        var version: ProtocolVersion = compatibility ? .original : .v2
        if let protocolVersion {
            if let v = ProtocolVersion(rawValue: protocolVersion) {
                version = v
            } else {
                problems.append("--protocol is 1 or 2")
            }
            if compatibility, protocolVersion == 2 {
                problems.append("--compatibility serves protocol 1 only; drop --protocol 2")
            }
        }
        if server != nil, !fault.isEmpty || compatibility {
            problems.append(
                "--fault and --compatibility switch the embedded server; with --server, start yours with them (whalesim serve --fault NAME / --compatibility)"
            )
        }
        if let server,
            URL(string: server)?.host == nil || !(server.hasPrefix("http://") || server.hasPrefix("https://"))
        {
            problems.append("--server \(server): expected http://host:port")
        }
        var faults = FaultSet()
        let serverSide = Fault.allCases.filter { !$0.isClientSide }.map(\.rawValue).joined(separator: ", ")
        for name in fault {
            guard let known = Fault(rawValue: name) else {
                problems.append("unknown fault \(name); the server's: \(serverSide)"); continue
            }
            if known.isClientSide {
                problems.append("\(name) is a client-side fault; the server's: \(serverSide)")
            } else {
                faults.insert(known)
            }
        }
        let cases = ConformSuite.matching(only)
        if cases.isEmpty { problems.append("--only \(only ?? ""): no case id matches (whalesim conform --list)") }
        var expected = Set<String>()
        if let expectFail {
            if let text = try? String(contentsOfFile: expectFail, encoding: .utf8) {
                do { expected = try ExpectedFailures.parse(text) } catch {
                    problems.append("\(expectFail): \(error.evidence)")
                }
            } else {
                problems.append("--expect-fail \(expectFail): cannot read it")
            }
        }
        var logins: [ConformTarget.Login] = []
        if !user.isEmpty {
            if user.count != 3 {
                problems.append(
                    "--user: give it three times (two users of one organization, then one of another), or not at all")
            }
            for entry in user {
                guard let colon = entry.firstIndex(of: ":"), colon != entry.startIndex else {
                    problems.append("--user \(entry): expected EMAIL:PASSWORD"); continue
                }
                logins.append(
                    ConformTarget.Login(
                        email: String(entry[..<colon]), password: String(entry[entry.index(after: colon)...])))
            }
        }
        if !(100_000...1_000_000_000).contains(slowReaderBytes) {
            problems.append("--slow-reader-bytes must be between 100000 and 1000000000")
        }
        if maxMessageBytes < 64 { problems.append("--max-message-bytes must be at least 64") }
        if !(1...100_000).contains(maxMessagesPerSecond) {
            problems.append("--max-messages-per-second must be between 1 and 100000")
        }
        // An hour at most: past that the token is no longer "just" expired, and a leeway of a day
        // is the defect the case is there to catch.
        if !(0...3600).contains(tokenLeeway) {
            problems.append("--token-leeway must be between 0 and 3600 seconds (got \(tokenLeeway))")
        }
        if !(100...120_000).contains(timeoutMs) { problems.append("--timeout-ms must be between 100 and 120000") }
        var seed = URL(fileURLWithPath: "Fixtures/whaler/seed.json")
        if server == nil {
            do {
                seed = try BuiltinFixtures.directory(given: fixtures, holding: "whaler/seed.json").url
                    .appendingPathComponent("whaler/seed.json")
            } catch {
                problems.append("cannot write the built-in fixtures to a temporary directory: \(error)")
            }
            if let fixtures, !FileManager.default.fileExists(atPath: seed.path) {
                problems.append("--fixtures \(fixtures): no whaler/seed.json there")
            }
        }
        if !problems.isEmpty { throw BadInput(problems.joined(separator: "\n")) }
        return Plan(version: version, cases: cases, expected: expected, faults: faults, logins: logins, seed: seed)
    }

    /// `--out`, or a fresh `Reports/conform/<time>/` with `Reports/conform/latest` pointing at it.
    func outputDirectory() throws -> String {
        if let out {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            return out
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let root = (reportDir as NSString).appendingPathComponent("conform")
        var name = formatter.string(from: Date()), n = 2
        while FileManager.default.fileExists(atPath: (root as NSString).appendingPathComponent(name)) {
            name = formatter.string(from: Date()) + "-\(n)"
            n += 1
        }
        let directory = (root as NSString).appendingPathComponent(name)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try RunDirectoryLayout.relink((root as NSString).appendingPathComponent("latest"), to: name)
        return directory
    }
}
