import NIOConcurrencyHelpers
import WhaleRun
import WhaleTelemetry

/// `run --listen HOST:PORT`: the live view (WhaleTelemetry's endpoint) of the command's runs,
/// fed from the run in progress (each run of a `--repeat` in turn), finished with the verdict
/// and the report's address, and kept up a moment after so a scrape or the page sees the end.
final class LiveView: Sendable {
    let server: TelemetryServer
    private let current: NIOLockedValueBox<LiveRun?>

    private init(server: TelemetryServer, current: NIOLockedValueBox<LiveRun?>) {
        self.server = server
        self.current = current
    }

    /// Binds `listen` before anything else starts; a malformed or taken address is refused
    /// (``TelemetryListenError``, exit 64) with nothing started.
    static func start(_ listen: String, title: String) async throws(TelemetryListenError) -> LiveView {
        let current = NIOLockedValueBox<LiveRun?>(nil)
        let server = try await TelemetryServer.start(listen: listen) {
            current.withLockedValue { $0 }?.telemetrySnapshot()
                ?? TelemetrySnapshot(status: RunStatus(phase: "starting", title: title))
        }
        return LiveView(server: server, current: current)
    }

    /// The run whose figures the view serves from now on.
    func attach(_ run: LiveRun) { current.withLockedValue { $0 = run } }

    /// The command is over: the last snapshot (verdict, report), served for `linger` more so a
    /// dashboard open on it and a 1 s scrape see it, then the endpoint closes.
    func finish(_ snapshot: TelemetrySnapshot, linger: Duration = .seconds(2)) async {
        server.finish(snapshot)
        try? await Task.sleep(for: linger)
        await server.stop()
    }
}
