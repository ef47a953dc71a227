import Foundation
import WhaleEmbedded
import WhaleLoad
import WhaleProtocol
import WhaleServer
import WhaleSim
import SalesforceHTTP

/// The run's first phases: the open-files limit, the power-loss mount, the faults on from the
/// start, and the targets (the server, Salesforce, the HTTP executor, the network proxy).
extension LiveRun {
    /// The faults on from the start of the run, split by side, and the names of the windowed ones.
    struct StartingFaults {
        /// Windowed faults, switched by `runFaultSwitches`.
        var windowed: Set<String>
        var server: FaultSet
        var client: FaultSet
    }

    /// The targets the run drives and how its sockets reach the server.
    struct Targets {
        var serverURL: String
        var executor: any HTTPExecutor
        var whaler: WhalerAPI
        var salesforce: SalesforceAPI?
        /// The server's socket, direct: the recorders and the final reads observe, they are not under test.
        var socketURL: String
        /// The socket the virtual users dial: the proxy's when the run has network faults.
        var clientSocketURL: String
    }

    /// Throws when this process cannot open the files its clients, recorders and redials need.
    func checkOpenFiles() throws {
        let ownClients = options.shard.map { (scenario.clients + $0.count - 1) / $0.count } ?? scenario.clients
        // Room for a redial storm only where something can cause one: a nemesis, a network fault,
        // a catalog fault, a reconnect action or a script (any of them may close sockets at once).
        let storms =
            !scenario.nemeses.isEmpty || !(scenario.live?.networkFaults.isEmpty ?? true)
            || !scenario.faultWindows.isEmpty
            || scenario.mix[.reconnect] > 0 || scenario.script != nil
        if let shortfall = OpenFiles.shortfall(clients: ownClients, documents: scenario.documents, storms: storms) {
            throw LiveRunError(shortfall)
        }
    }

    /// Where the embedded server's database goes: on a `whalesim lazyfs` mount when the scenario
    /// has power-loss windows (else the plain work directory). A power loss that cannot be had
    /// (no FUSE, an in-process server, a team's server without --restart-command and
    /// --lazyfs-control) is marked unavailable here, before the load.
    func preparePowerLoss(workDirectory: URL) -> URL {
        guard scenario.nemeses.contains(where: { $0.kind == .powerLoss }) else { return workDirectory }
        switch spec.server {
        case .embedded:
            guard let executable = options.serverExecutable else {
                markUnavailable(
                    "power-loss windows: the embedded server runs in this process; a power loss needs it in a child process on whalesim lazyfs"
                )
                return workDirectory
            }
            do {
                let mount = try LazyFSMount(
                    executable: executable, backing: workDirectory.appendingPathComponent("durable"),
                    mount: workDirectory.appendingPathComponent("lazyfs"))
                lazyMount = mount
                note(
                    "the embedded server's database is on whalesim lazyfs at \(mount.mount.path) (backing \(mount.backing.path))"
                )
                return mount.mount
            } catch {
                markUnavailable("power-loss windows: \(error)")
                return workDirectory
            }
        case .url(let u):
            if options.restartCommand == nil || options.lazyfsControl == nil {
                markUnavailable(
                    "power-loss windows: the server at \(u) is not embedded; give --restart-command and --lazyfs-control (its data directory on whalesim lazyfs, docs/lazyfs.md)"
                )
            }
            return workDirectory
        }
    }

    /// Whole-run faults are on from the start; windowed ones are switched by `runFaultSwitches`.
    func startingFaults() -> StartingFaults {
        let windowed = Set(scenario.faultWindows.filter { !$0.isWholeRun }.map(\.name))
        let faults = FaultSet(scenario.faults.filter { !windowed.contains($0) }.compactMap(Fault.init(rawValue:)))
        let serverFaults = FaultSet(faults.filter { !$0.isClientSide })
        let clientFaults = FaultSet(faults.filter { $0.isClientSide })
        return StartingFaults(windowed: windowed, server: serverFaults, client: clientFaults)
    }

    /// The server (embedded or the team's), the HTTP executor, Salesforce, then the proxy.
    func startTargets(databaseDirectory: URL, workDirectory: URL, serverFaults: FaultSet) async throws -> Targets {
        let serverURL = try await startServer(
            databaseDirectory: databaseDirectory, workDirectory: workDirectory, serverFaults: serverFaults)
        // Sized for bursts: a restart's thousand page refetches come and go (HTTPExecutors.forRunner).
        let executor = HTTPExecutors.forRunner(clients: scenario.clients)
        self.executor = executor
        let api = APIClient(executor: executor, metrics: metrics)
        let whaler = WhalerAPI(baseURL: serverURL, client: api)
        let salesforce = try await startSalesforce(api: api)
        let socketURL =
            serverURL.replacingOccurrences(of: "https://", with: "wss://").replacingOccurrences(
                of: "http://", with: "ws://") + "/socket"
        let clientSocketURL = try await startProxy(serverURL: serverURL, socketURL: socketURL)
        return Targets(
            serverURL: serverURL, executor: executor, whaler: whaler, salesforce: salesforce,
            socketURL: socketURL, clientSocketURL: clientSocketURL)
    }

    /// Starts the embedded server (or notes what does not apply to the team's); its base URL.
    private func startServer(databaseDirectory: URL, workDirectory: URL, serverFaults: FaultSet) async throws -> String
    {
        switch spec.server {
        case .embedded:
            let level = SQLiteSynchronous(rawValue: scenario.storageSync.rawValue) ?? .full
            let slowClientQueue = spec.slowClientQueue, log = Self.backpressureLogPath(in: workDirectory)
            let s = try await EmbeddedServer.start(
                directory: databaseDirectory, fixtures: options.fixtures.appendingPathComponent("whaler/seed.json"),
                faults: serverFaults, executable: options.serverExecutable
            ) { c in
                c.sqliteSynchronous = level
                if let slowClientQueue { c.slowClientQueue = slowClientQueue }
                c.backpressureLog = log
            }
            server = s
            return s.baseURL
        case .url(let u):
            if !serverFaults.isEmpty {
                note(
                    "server-side faults \(serverFaults.map(\.rawValue)) apply to the embedded server only: the target at \(u) runs as it is"
                )
            }
            if scenario.storageSync != .full {
                note(
                    "storage.synchronous \(scenario.storageSync.rawValue) applies to the embedded server only: the target at \(u) syncs as it is configured"
                )
            }
            return u
        }
    }

    /// The embedded fake Salesforce started (or the given one's client).
    private func startSalesforce(api: APIClient) async throws -> SalesforceAPI? {
        switch spec.salesforce {
        case .embedded:
            let sf = try await EmbeddedSalesforce.start(
                fixtures: options.fixtures, accounts: max(600, scenario.documents * 4), seed: options.seed)
            salesforceServer = sf
            var api = SalesforceAPI(baseURL: sf.httpURL, apiVersion: "59.0", client: api)
            api.pinInstance = true
            return api
        case .url(let u):
            return SalesforceAPI(baseURL: u, apiVersion: "59.0", client: api)
        }
    }

    /// The socket the clients dial. Network faults need the proxy between the clients' sockets and
    /// the server; the recorders and the final reads go direct (they observe, they are not under test).
    private func startProxy(serverURL: String, socketURL: String) async throws -> String {
        var clientSocketURL = socketURL
        if needsProxy {
            guard let u = URL(string: serverURL), let host = u.host,
                let port = u.port ?? (u.scheme == "https" ? 443 : 80) as Int?, u.scheme == "http"
            else {
                throw LiveRunError("network faults need a plain http:// server URL to proxy, got \(serverURL)")
            }
            let p = try await FaultProxy.start(upstreamHost: host, upstreamPort: port, seed: options.seed)
            proxy = p
            clientSocketURL = "ws://127.0.0.1:\(p.port)/socket"
        }
        return clientSocketURL
    }
}
