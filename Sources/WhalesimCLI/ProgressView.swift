import Foundation
import NIOConcurrencyHelpers
import WhaleTelemetry

/// `simulate --listen` and `conform --listen`: what the command has done so far (seeds run and
/// failed, conformance cases by outcome), served by WhaleTelemetry's endpoint as `run --listen`
/// serves a run, so a CI job's dashboard or a Prometheus sees a long `--seeds 10000` move.
final class ProgressView: Sendable {
    let server: TelemetryServer
    private let state: NIOLockedValueBox<TelemetrySnapshot>
    private let started: ContinuousClock.Instant

    private init(server: TelemetryServer, state: NIOLockedValueBox<TelemetrySnapshot>, started: ContinuousClock.Instant)
    {
        self.server = server
        self.state = state
        self.started = started
    }

    /// Binds `listen` before the command starts its work; refused (exit 64) when taken or malformed.
    static func start(
        _ listen: String, labels: RunLabels, title: String, phase: String, families: [MetricDescriptor]
    ) async throws(TelemetryListenError) -> ProgressView {
        var first = TelemetrySnapshot(run: labels, status: RunStatus(phase: phase, title: title))
        for family in families { first.declare(family) }
        let state = NIOLockedValueBox(first)
        let started = ContinuousClock.now
        let server = try await TelemetryServer.start(listen: listen) {
            var snapshot = state.withLockedValue { $0 }
            let elapsed = ContinuousClock.now - started
            snapshot.status.elapsedSeconds =
                Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return snapshot
        }
        return ProgressView(server: server, state: state, started: started)
    }

    /// Changes what the view shows (one lock; called from the command's progress callbacks).
    func update(_ change: (inout TelemetrySnapshot) -> Void) { state.withLockedValue(change) }

    /// The command is over: its verdict and report, served two more seconds, then the endpoint closes.
    func finish(verdict: String, note: String?, reportURL: String?) async {
        var final = state.withLockedValue { $0 }
        let elapsed = ContinuousClock.now - started
        final.status.elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        final.status.phase = "finished"
        final.status.verdict = verdict
        final.status.verdictNote = note
        final.status.reportURL = reportURL
        server.finish(final)
        try? await Task.sleep(for: .seconds(2))
        await server.stop()
    }
}
