import Foundation
import SalesforceFake
import WhaleLoad

/// Stopping what the run started: everything at the end of a run, or what a run that could not
/// start may have started.
extension LiveRun {
    /// Stops what a run that could not start may have started (idempotent).
    func stopTargets() async {
        for r in recorders { await r.close() }
        await executor?.shutdown()
        await proxy?.stop()
        await server?.stop()
        await salesforceServer?.stop()
    }

    /// Closes the users' sockets and the recorders, stops the executor, the proxy, the server and
    /// the fake Salesforce, and takes the server's backpressure marks into the history. Returns
    /// the fake Salesforce's request log, read before it stopped.
    func shutDown(executor: any HTTPExecutor, recorder: LiveRecorder, workDirectory: URL) async -> [RequestLogEntry]? {
        for u in users.withLockedValue({ $0 }) {
            await u.noteSession?.close()
            await u.modelPage?.close()
        }
        for r in recorders { await r.close() }
        let salesforceLog = salesforceServer?.fake.requestLog.entries
        await executor.shutdown()
        if let proxy {
            let s = proxy.stats
            note(
                "proxy: \(s.connectionsAccepted) connections, \(s.bytesUpstream) bytes up, \(s.bytesDownstream) down, \(s.connectionsDropped) reset, \(s.chunksHeld) chunks held, \(s.chunksDiscarded) discarded"
            )
            await proxy.stop()
        }
        await server?.stop()
        await salesforceServer?.stop()
        if server != nil || options.serverBackpressureLog != nil {
            let marks = Self.recordBackpressure(
                path: options.serverBackpressureLog ?? Self.backpressureLogPath(in: workDirectory), recorder: recorder,
                epochStartMs: epochStartMs)
            if marks > 0 {
                note(
                    "the server marked connections slow or drained \(marks) time\(marks == 1 ? "" : "s") (its backpressure log, in the history as notes)"
                )
            }
        }
        return salesforceLog
    }
}
