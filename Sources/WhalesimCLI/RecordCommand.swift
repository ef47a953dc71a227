import ArgumentParser
import Foundation
import WhaleLoad
import WhaleSession
import WhaleTelemetry

/// `whalesim record`: a recording reverse proxy in front of a Whaler-compatible server (and,
/// optionally, the Salesforce its app talks to). Real clients point at it and work as usual;
/// it forwards every byte unchanged and writes a session file (docs/sessions.md).
///
/// ```
/// whalesim record --listen 127.0.0.1:8081 --upstream http://127.0.0.1:8080 --out team.session
/// ```
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record real clients' sessions through a reverse proxy, for replay as load.",
        discussion: """
            Listens on --listen and forwards every connection, unchanged, to --upstream (http or https); \
            with --salesforce-listen and --salesforce-upstream, a second proxy does the same for the \
            Salesforce the app talks to. Every REST and GraphQL request with its response, every \
            websocket frame both ways and every Salesforce request, with its time, goes into --out, a \
            session file (docs/sessions.md), grouped into sessions, one per login. Passwords, access and \
            refresh tokens, client secrets and Salesforce session ids are replaced by named \
            placeholders before they reach the file, which is written owner-only (0600). SIGINT or \
            SIGTERM stops it cleanly with what it has (the file ends with its end line). Exit codes: \
            0 stopped cleanly, 64 bad input.

            Examples:
              # before a server on port 8080; the app then uses 8081
              whalesim record --listen 8081 --upstream http://127.0.0.1:8080 --out s.jsonl
              whalesim run --replay s.jsonl --users 50
            """
    )

    @Option(help: "Address to listen on for the app: PORT or HOST:PORT (0: any free port).")
    var listen: String

    @Option(help: "The Whaler server to forward to (http://host:port or https://…).")
    var upstream: String

    @Option(help: "Address to listen on for the app's Salesforce calls (needs --salesforce-upstream).")
    var salesforceListen: String?

    @Option(help: "The Salesforce to forward to (https://instance or the fake's http URL).")
    var salesforceUpstream: String?

    @Option(help: "The session file to write (replaced if it exists).")
    var out: String

    static func upstream(_ text: String, flag: String) throws -> RecordingProxy.Upstream {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            throw BadInput("\(flag) \(text): expected http://host:port or https://host[:port]").exit()
        }
        guard url.path.isEmpty || url.path == "/" else {
            throw BadInput(
                "\(flag) \(text): a base URL without a path (the proxy forwards paths as the app sends them)"
            ).exit()
        }
        return .init(host: host, port: url.port ?? (scheme == "https" ? 443 : 80), tls: scheme == "https")
    }

    static func address(_ text: String, flag: String) throws -> ListenAddress {
        do { return try ListenAddress.parse(text) } catch { throw BadInput("\(flag) \(text): \(error)").exit() }
    }

    func run() async throws {
        let whaler = try Self.upstream(upstream, flag: "--upstream")
        let listenAddress = try Self.address(listen, flag: "--listen")
        guard (salesforceListen == nil) == (salesforceUpstream == nil) else {
            throw BadInput("--salesforce-listen and --salesforce-upstream go together").exit()
        }
        let salesforce = try salesforceUpstream.map { try Self.upstream($0, flag: "--salesforce-upstream") }
        let salesforceAddress = try salesforceListen.map { try Self.address($0, flag: "--salesforce-listen") }
        let header = SessionRecording.Header(
            source: "record", upstream: upstream, salesforceUpstream: salesforceUpstream,
            startedAt: ISO8601DateFormatter().string(from: Date()))
        let writer: SessionFileWriter
        do { writer = try SessionFileWriter(path: out, header: header) } catch {
            throw BadInput("--out \(out): \(error.message)").exit()
        }
        let sink = RecordingSink(writer: writer)
        var proxies: [RecordingProxy] = []
        do {
            proxies.append(
                try await RecordingProxy.start(
                    host: listenAddress.host, port: listenAddress.port, upstream: whaler, target: .whaler, sink: sink))
            if let salesforce, let salesforceAddress {
                proxies.append(
                    try await RecordingProxy.start(
                        host: salesforceAddress.host, port: salesforceAddress.port, upstream: salesforce,
                        target: .salesforce, sink: sink))
            }
        } catch {
            for p in proxies { await p.stop() }
            try? sink.finish()
            throw BadInput("cannot listen: \(error)").exit()
        }
        // The handlers are in place before the banner: whoever reads it may signal at once.
        let termination = FakeSalesforceCommand.terminationSignal()
        var banner = "recording: http://\(listenAddress.host):\(proxies[0].port) -> \(upstream)\n"
        if proxies.count > 1 {
            banner +=
                "recording salesforce: http://\(salesforceAddress!.host):\(proxies[1].port) -> \(salesforceUpstream!)\n"
        }
        banner += "writing \(out) (owner-only); SIGINT or SIGTERM stops\n"
        FileHandle.standardOutput.write(Data(banner.utf8))
        let signal = await termination.value
        for p in proxies { await p.stop() }
        do { try sink.finish() } catch {
            printError("whalesim: \(error)")
            throw ExitCode(1)
        }
        let recorded = (try? SessionRecording.read(path: out))
        let sessions = recorded?.sessions.filter { $0 != "s0" }.count ?? 0
        var summary =
            "whalesim: \(signal): \(sink.events) events in \(sessions) session\(sessions == 1 ? "" : "s") over \(sink.connections) connections written to \(out)"
        if recorded?.sessions.contains("s0") == true { summary += " (s0: what no login accounts for)" }
        printError(summary)
        for line in sink.unreadableConnections {
            printError("  not recorded (forwarded as is): \(line)")
        }
    }
}
