import WhaleLoad

/// A page with a socket of its own that the app's websocket manager keeps connected: once the
/// socket is lost it dials again by itself, whatever the user is doing (a user in a long idle
/// would otherwise stay away until their next keystroke, and a server restart would take as
/// long to heal as the longest idle).
protocol Redialing: AnyObject, Sendable {
    /// The client's index (spreads the retries of many clients apart).
    var index: Int { get }
    /// The socket is down and the page is not closing.
    var needsReconnect: Bool { get }
    /// Opens a new socket unless one is open or being opened.
    func reconnectIfNeeded() async
    /// The loop its socket and pauses run on, when not NIO's (`live.runner-loop: epoll`).
    var clientLoop: EpollClientLoop? { get }
}

extension Redialing {
    var clientLoop: EpollClientLoop? { nil }

    /// Dials after `firstMs`, then with doubling backoff capped at 2 s, until the socket is back
    /// or the page closes. The jitter is a function of the client and the attempt, so a herd
    /// after a server restart spreads out the same way every time.
    func redial(after firstMs: Int) {
        Task(executorPreference: clientLoop) { [weak self] in
            var wait = firstMs, attempt = 0
            while let page = self {
                // On the event loop's timer, not `Task.sleep`: a restart sends a thousand pages
                // into this loop at once, and each Dispatch timer (a source, a continuation and
                // a task of its own) added some 3 KB to the storm's peak (issue 21).
                await LoopSleep.sleep(ms: wait, on: page.clientLoop)
                guard page.needsReconnect else { return }
                await page.reconnectIfNeeded()
                attempt += 1
                let backoff = min(100 << min(attempt, 5), 2_000)
                wait = backoff + (page.index &* 7_919 &+ attempt &* 104_729) % (backoff + 1)
            }
        }
    }
}
