import ArgumentParser
import Dispatch
import Foundation
import SalesforceFake
import WhaleEmbedded
import SalesforceHTTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `whalesim fake-salesforce`: serves an org over HTTP and HTTPS until SIGINT or SIGTERM.
///
/// ```
/// whalesim fake-salesforce --org Fixtures/salesforce/small --port 8080 --tls-port 8443 --ca-out /tmp/ca.pem
/// curl -s http://127.0.0.1:8080/services/data/
/// ```
struct FakeSalesforceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fake-salesforce",
        abstract: "Serve a fake Salesforce org (REST, SOAP login, OAuth) over HTTP and HTTPS.",
        discussion: """
            Prints the HTTP and HTTPS URLs and the CA file (point REQUESTS_CA_BUNDLE or curl --cacert at it), \
            then serves until SIGINT or SIGTERM (the first stops it cleanly, exit 0; a second exits at once \
            with 130 / 143). Port 0 picks a free port. Without --org, --generate-accounts grows the built-in \
            small org (./Fixtures/salesforce/small when present).

            Examples:
              whalesim fake-salesforce --port 9000 --tls-port 9443
              whalesim fake-salesforce --generate-accounts 5000 --ca-out ca.pem
            """)

    @Option(name: .long, help: "Org fixture directory (e.g. Fixtures/salesforce/small).")
    var org: String?

    @Option(name: .long, help: "Serve a generated org with this many accounts (--org is then the template).")
    var generateAccounts: Int?

    @Option(name: .long, help: "Plain HTTP port (0 picks one).")
    var port: Int = 0

    @Option(name: .customLong("tls-port"), help: "HTTPS port (0 picks one).")
    var tlsPort: Int = 0

    @Option(name: .customLong("ca-out"), help: "Where to write the CA certificate (PEM).")
    var caOut: String?

    @Option(name: .long, help: "Seed of tokens, faults and latency draws (and of --generate-accounts).")
    var seed: UInt64 = 1

    @Option(
        name: .long,
        help: "JSON file with a FakeSalesforceConfig (faults and latency per endpoint; its seed replaces --seed).")
    var config: String?

    @Option(name: .long, help: "Address to bind.")
    var host: String = "127.0.0.1"

    func run() async throws {
        defer { BuiltinFixtures.cleanUp() }
        let (loaded, apps) = try loadOrg()
        var settings = FakeSalesforceConfig(seed: seed)
        if let config {
            do {
                settings = try JSONDecoder().decode(
                    FakeSalesforceConfig.self, from: Data(contentsOf: URL(fileURLWithPath: config)))
            } catch {
                throw BadInput("cannot read --config \(config): \(error)").exit()
            }
        }
        guard (0...65535).contains(port), (0...65535).contains(tlsPort) else {
            throw BadInput("ports must be between 0 and 65535").exit()
        }
        let server: FakeSalesforceServer
        do {
            server = try await FakeSalesforceServer.start(
                org: loaded, config: settings, connectedApps: apps, host: host, httpPort: port, httpsPort: tlsPort,
                caFile: caOut.map { URL(fileURLWithPath: $0) })
        } catch {
            throw BadInput("\(error)").exit()
        }
        // Written straight to the file handle (unbuffered), so a parent process reading the pipe sees it at once.
        let banner = """
            http: \(server.httpURL)
            https: \(server.httpsURL)
            ca: \(server.caFile.path)
            org: \(loaded.settings.name) (\(loaded.settings.orgId)), API v\(loaded.settings.apiVersionMin)...v\(loaded.settings.apiVersionMax)

            """
        // The handler is in place before the banner: whoever reads it may signal at once.
        let termination = Self.terminationSignal()
        FileHandle.standardOutput.write(Data(banner.utf8))
        let signal = await termination.value
        printError("whalesim: \(signal), stopping after \(server.fake.requestsServed) requests")
        await server.stop()
    }

    private func loadOrg() throws -> (Org, [ConnectedApp]) {
        guard org != nil || generateAccounts != nil else {
            throw BadInput("give --org DIR, or --generate-accounts N (with --org as the template)").exit()
        }
        // With --generate-accounts, --org names the template (default: the small org, ./Fixtures or built in).
        let path = try SmallOrg.directory(given: org)
        let directory = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw BadInput("--org \(path): no such directory").exit()
        }
        do {
            let apps = try ConnectedApp.load(directory: directory)
            guard let count = generateAccounts else { return (try Org.load(directory: directory), apps) }
            guard count >= 0 else { throw BadInput("--generate-accounts must be ≥ 0").exit() }
            return (try OrgGenerator.generate(seed: seed, accounts: count, templateDirectory: directory), apps)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw BadInput("--org \(path): \(error)").exit()
        }
    }

    /// Installs the handlers now (``Interrupts``: a second signal exits at once); the task ends
    /// with the first SIGINT's or SIGTERM's name.
    static func terminationSignal() -> Task<String, Never> {
        let received = FirstSignal()
        Interrupts.install { received.set($0) }
        return Task { await received.value() }
    }
}

/// The first signal's name, waited for once (it may come before or after the wait begins).
private final class FirstSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var name: String?
    private var waiter: CheckedContinuation<String, Never>?

    func set(_ value: String) {
        let c: CheckedContinuation<String, Never>? = lock.withLock {
            guard name == nil else { return nil }
            name = value
            defer { waiter = nil }
            return waiter
        }
        c?.resume(returning: value)
    }

    func value() async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let ready: String? = lock.withLock {
                if let name { return name }
                waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
