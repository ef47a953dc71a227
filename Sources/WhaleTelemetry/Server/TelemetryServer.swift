import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// The live view of a run: `/metrics` (Prometheus text or OpenMetrics), `/events` (one JSON
/// snapshot a second as server-sent events), `/` (the dashboard page) and `/health`.
///
/// ```swift
/// let telemetry = try await TelemetryServer.start(listen: "127.0.0.1:0") { run.telemetrySnapshot() }
/// print(telemetry.listeningNote)        // "live view: http://127.0.0.1:40123/ (loopback only ...)"
/// ...                                   // the run; the server asks `source` every second
/// await telemetry.finish(final)         // the verdict and the report link, as the last event
/// await telemetry.stop()
/// ```
///
/// `source` is called once a second (for `/events`) and once per scrape (for `/metrics`), from
/// the server's own tasks: it must be thread-safe and cheap (a copy of counters, a histogram
/// per latency). Nothing the endpoint does waits on a client: see ``EventHub``.
public final class TelemetryServer: Sendable {
    /// How the endpoint behaves; the defaults suit a run.
    public struct Configuration: Sendable {
        /// How often `/events` pushes a snapshot.
        public var interval: Duration = .seconds(1)
        /// Frames each `/events` client may have unread before the oldest is dropped.
        public var eventBuffer: Int = 8
        public init() {}
    }

    public typealias Source = @Sendable () -> TelemetrySnapshot

    /// The address asked for, and the port bound (the system's pick for port 0).
    public let address: ListenAddress
    public let port: Int
    let hub: EventHub
    let configuration: Configuration
    private let source: Source?
    private let state = NIOLockedValueBox(State())

    private struct State {
        var latest = TelemetrySnapshot()
        var finished = false
        var listener: (any Channel)?
        /// The open connections, closed at ``stop()`` (a stuck `/events` client with them).
        var connections: [ObjectIdentifier: any Channel] = [:]
        var ticker: Task<Void, Never>?
    }

    /// The base URL, e.g. `http://127.0.0.1:40123/`.
    public var url: String {
        let host = address.host == "0.0.0.0" || address.host == "::" ? "127.0.0.1" : address.host
        return ListenAddress(host: host, port: port).description.withScheme
    }

    /// One line for the command to print: where the live view is and who can reach it.
    public var listeningNote: String {
        let reach =
            address.isLoopback
            ? "loopback only; --listen 0.0.0.0:\(port) to serve other machines"
            : "listening on \(ListenAddress(host: address.host, port: port)), reachable from other machines"
        return "live view: \(url) (metrics: \(url)metrics; \(reach))"
    }

    /// Parses `listen`, binds, and serves; returns once the port is bound. Throws
    /// ``TelemetryListenError`` (nothing started) when the text is malformed or the address cannot be had.
    public static func start(
        listen: String, configuration: Configuration = Configuration(),
        source: Source? = nil
    ) async throws(TelemetryListenError) -> TelemetryServer {
        try await start(address: ListenAddress.parse(listen), configuration: configuration, source: source)
    }

    /// Binds `address` and serves; see ``start(listen:configuration:source:)``.
    public static func start(
        address: ListenAddress, configuration: Configuration = Configuration(),
        source: Source? = nil
    ) async throws(TelemetryListenError) -> TelemetryServer {
        let hub = EventHub(capacity: configuration.eventBuffer)
        let holder = NIOLockedValueBox<TelemetryServer?>(nil)
        let lookup: @Sendable () -> TelemetryServer? = { holder.withLockedValue { $0 } }
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                lookup()?.opened(channel)
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(TelemetryHTTPHandler(hub: hub, server: lookup))
                }
            }
        let listener: any Channel
        do {
            listener = try await bootstrap.bind(host: address.host, port: address.port).get()
        } catch {
            throw Self.listenError(error, address)
        }
        let server = TelemetryServer(
            address: address, port: listener.localAddress?.port ?? address.port, hub: hub,
            configuration: configuration, source: source)
        holder.withLockedValue { $0 = server }
        server.state.withLockedValue { $0.listener = listener }
        if source != nil { server.startTicker() }
        return server
    }

    /// Keeps a connection until it closes, so ``stop()`` can close it.
    private func opened(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        state.withLockedValue { $0.connections[key] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in
            _ = self?.state.withLockedValue { $0.connections.removeValue(forKey: key) }
        }
    }

    private init(address: ListenAddress, port: Int, hub: EventHub, configuration: Configuration, source: Source?) {
        self.address = address
        self.port = port
        self.hub = hub
        self.configuration = configuration
        self.source = source
    }

    /// Pushes a snapshot to every `/events` client now (also what the ticker does each second)
    /// and keeps it for `/metrics` when there is no source. Never waits for a client.
    public func publish(_ snapshot: TelemetrySnapshot) {
        guard
            state.withLockedValue({ state in
                guard !state.finished else { return false }
                state.latest = snapshot
                return true
            })
        else { return }
        hub.publish(EventFrame.sse(snapshot, final: false), snapshot: snapshot)
    }

    /// The run has ended: `snapshot` (its status with the verdict and the report's URL) becomes
    /// the last event (`event: final`) and what `/metrics` serves from now on; the ticker stops.
    /// The endpoint keeps serving until ``stop()``, so the page shows the verdict.
    public func finish(_ snapshot: TelemetrySnapshot) {
        let ticker = state.withLockedValue { state -> Task<Void, Never>? in
            state.finished = true
            state.latest = snapshot
            defer { state.ticker = nil }
            return state.ticker
        }
        ticker?.cancel()
        hub.publish(EventFrame.sse(snapshot, final: true), final: true)
    }

    /// Stops serving: ends every `/events` stream, closes the listener and every connection
    /// (a client that never reads included), and returns once they are closed. Idempotent.
    public func stop() async {
        let (listener, connections, ticker) = state.withLockedValue { state in
            defer {
                state.listener = nil
                state.ticker = nil
            }
            return (state.listener, Array(state.connections.values), state.ticker)
        }
        ticker?.cancel()
        hub.close()
        try? await listener?.close()
        for connection in connections { try? await connection.close() }
    }

    /// The snapshot `/metrics` serves: the source's now while the run goes, else the latest
    /// published (or the final), with the endpoint's own figures added.
    func currentSnapshot() -> TelemetrySnapshot {
        let (latest, finished) = state.withLockedValue { ($0.latest, $0.finished) }
        var snapshot = !finished ? source?() ?? latest : latest
        snapshot.set(MetricCatalog.droppedEvents, hub.droppedFrames)
        snapshot.set(MetricCatalog.eventClients, hub.clientCount)
        return snapshot
    }

    /// The phase `/health` reports.
    var currentPhase: String { currentSnapshot().status.phase }

    /// Frames dropped for slow `/events` clients so far.
    public var droppedEvents: Int { hub.droppedFrames }
    /// `/events` clients connected now.
    public var eventClients: Int { hub.clientCount }

    private func startTicker() {
        guard let source else { return }
        let interval = configuration.interval
        let ticker = Task { [weak self] in
            while !Task.isCancelled {
                self?.publish(source())
                try? await Task.sleep(for: interval)
            }
        }
        state.withLockedValue { $0.ticker = ticker }
    }

    private static func listenError(_ error: any Error, _ address: ListenAddress) -> TelemetryListenError {
        if let io = error as? IOError, io.errnoCode == 98 || io.errnoCode == 48 { return .addressInUse(address) }
        let text = "\(error)"
        if text.contains("Address already in use") || text.contains("EADDRINUSE") { return .addressInUse(address) }
        return .cannotListen(address, reason: text)
    }
}

extension String {
    fileprivate var withScheme: String { "http://\(self)/" }
}
