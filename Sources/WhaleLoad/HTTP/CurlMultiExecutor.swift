import CCurl
import Foundation
import NIOConcurrencyHelpers
#if canImport(Glibc)
    import Glibc
#endif

/// ``HTTPExecutor`` on libcurl's multi interface: one dedicated thread drives every transfer
/// (`curl_multi_perform` / `curl_multi_info_read` / `curl_multi_poll`), so thousands of concurrent
/// requests cost one thread and the sockets they use. Requests reach the thread through a locked
/// inbox and `curl_multi_wakeup`; each completion resumes its caller's continuation. Keep-alive
/// connections live in the multi handle's cache (up to `maxConnections`, or `idleConnectionsMax` once
/// their transfers are done) and finished easy handles are reset and reused.
///
/// ```swift
/// let http = CurlMultiExecutor(caFile: server.caFile.path)
/// let result = try await http.execute(HTTPRequestSpec(url: "https://127.0.0.1:8443/services/data/"), timeout: .seconds(5))
/// print(result.status, result.text)
/// await http.shutdown()
/// ```
public final class CurlMultiExecutor: HTTPExecutor {
    /// Options fixed for the executor's lifetime.
    public struct Options: Sendable {
        /// PEM file of the CA(s) to trust for HTTPS (a self-signed CA); nil trusts the system store.
        public var caFile: String?
        /// Open connections at most (all hosts); further transfers wait for one inside curl.
        public var maxConnections: Int
        /// Finished easy handles kept for reuse.
        public var idleHandlesMax: Int
        /// Idle handles kept however quiet it gets; above it, the pool keeps only as many as
        /// were in flight at once in the last one or two `idleStretch`es.
        public var idleHandlesMin: Int
        public var idleStretch: Duration
        /// Keep-alive connections kept open once their transfers are done (CURLMOPT_MAXCONNECTS);
        /// beyond it, each connection a finished transfer hands back closes the oldest idle one.
        /// Nil keeps as many as `maxConnections`.
        public var idleConnectionsMax: Int?
        /// A keep-alive connection idle longer than this is closed instead of reused (CURLOPT_MAXAGE_CONN).
        public var connectionMaxIdleSeconds: Int
        /// The receive buffer of each transfer (CURLOPT_BUFFERSIZE, 1 KB to 512 KB): the
        /// answers the runner reads are a few KB; a larger one only takes fewer reads.
        public var receiveBufferBytes: Int
        /// libcurl's CURLOPT_VERBOSE (to stderr), for debugging only.
        public var verbose: Bool

        public init(
            caFile: String? = nil, maxConnections: Int = 1024, idleHandlesMax: Int = 4096, idleHandlesMin: Int = 16,
            idleStretch: Duration = .seconds(10), idleConnectionsMax: Int? = nil, connectionMaxIdleSeconds: Int = 30,
            receiveBufferBytes: Int = 4096,
            verbose: Bool = false
        ) {
            self.caFile = caFile
            self.maxConnections = maxConnections
            self.idleHandlesMax = idleHandlesMax
            self.idleHandlesMin = idleHandlesMin
            self.idleStretch = idleStretch
            self.idleConnectionsMax = idleConnectionsMax.map { min(max($0, 1), maxConnections) }
            self.connectionMaxIdleSeconds = connectionMaxIdleSeconds
            self.receiveBufferBytes = min(max(receiveBufferBytes, 1024), 512 * 1024)
            self.verbose = verbose
        }
    }

    private let inbox: CurlInbox
    private let idleReport = NIOLockedValueBox(0)
    /// Easy handles kept idle for reuse now (as the executor's thread last changed the pool).
    public var idleHandleCount: Int { idleReport.withLockedValue { $0 } }
    private let peakReport: NIOLockedValueBox<Int>
    /// The most transfers in flight at once since the last call (for a run's diagnostics).
    public func takePeakInFlight() -> Int {
        peakReport.withLockedValue { p in
            defer { p = 0 }; return p
        }
    }
    private let stopped = NIOLockedValueBox<[CheckedContinuation<Void, Never>]?>([])

    public convenience init(caFile: String? = nil, maxConnections: Int = 1024, verbose: Bool = false) {
        self.init(options: Options(caFile: caFile, maxConnections: maxConnections, verbose: verbose))
    }

    public init(options: Options) {
        CurlGlobal.initialize()
        inbox = CurlInbox()
        let loop = CurlMultiLoop(options: options, inbox: inbox, idleReport: idleReport)
        peakReport = loop.peakReport
        let stopped = self.stopped
        let thread = Thread {
            #if canImport(Glibc)
                // Named from inside: Foundation's `Thread.name` does not reach the kernel here, and the
                // thread would show under its creator's name (a cooperative pool thread) in top -H.
                // pthread_setname_np needs _GNU_SOURCE, which the Glibc module lacks: look it up.
                if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np") {
                    typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
                    _ = unsafeBitCast(symbol, to: SetName.self)(pthread_self(), "whalesim-curl")
                }
            #endif
            loop.run()
            let waiters = stopped.withLockedValue { waiters -> [CheckedContinuation<Void, Never>] in
                defer { waiters = nil }
                return waiters ?? []
            }
            waiters.forEach { $0.resume() }
        }
        thread.name = "whalesim-curl"
        thread.start()
    }

    public func execute(_ request: HTTPRequestSpec, timeout: Duration) async throws(HTTPTransportError) -> HTTPResult {
        let transfer = CurlTransfer(request: request, timeout: timeout)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<HTTPResult, HTTPTransportError>, Never>) in
                submit(transfer) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            inbox.cancel(transfer)
        }
        return try result.get()
    }

    /// `then` runs on the curl thread as the transfer ends: keep it short (hand the result to
    /// an event loop for anything more than bookkeeping).
    public func start(
        _ request: HTTPRequestSpec, timeout: Duration,
        then: @escaping @Sendable (Result<HTTPResult, HTTPTransportError>) -> Void
    ) {
        submit(CurlTransfer(request: request, timeout: timeout), then: then)
    }

    /// Hands `transfer` to the curl thread, `then` to be called with its outcome; at once with an
    /// error once the executor is shutting down.
    private func submit(
        _ transfer: CurlTransfer, then: @escaping @Sendable (Result<HTTPResult, HTTPTransportError>) -> Void
    ) {
        transfer.completion = then
        if !inbox.submit(transfer) {
            transfer.completion = nil
            then(.failure(HTTPTransportError(.other, "the curl executor is shut down")))
        }
    }

    /// Fails the transfers in flight, stops the thread and frees every curl handle. Idempotent.
    public func shutdown() async {
        inbox.stop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = stopped.withLockedValue { waiters -> Bool in
                guard waiters != nil else { return true }
                waiters!.append(continuation)
                return false
            }
            if finished { continuation.resume() }
        }
    }
}

/// `curl_global_init`, once per process.
enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    static func initialize() { _ = initialized }
}

/// One request on its way through the multi handle. Touched by the caller's task until it is
/// submitted, then only by the curl thread (the inbox's lock orders the hand-over).
final class CurlTransfer: @unchecked Sendable {
    let request: HTTPRequestSpec
    let timeoutMilliseconds: Int
    /// Whom the outcome goes to: an awaiting caller's continuation, or a ``CurlMultiExecutor/start(_:timeout:then:)`` callback.
    var completion: (@Sendable (Result<HTTPResult, HTTPTransportError>) -> Void)?
    // Filled by the curl thread.
    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    var responseHeaders: [(String, String)] = []
    var body: [UInt8] = []
    /// Set under the inbox's lock when the caller's task is cancelled.
    var cancelRequested = false

    init(request: HTTPRequestSpec, timeout: Duration) {
        self.request = request
        let (seconds, attoseconds) = timeout.components
        timeoutMilliseconds = max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }

    /// Resumes the caller once; later calls do nothing.
    func finish(_ result: Result<HTTPResult, HTTPTransportError>) {
        let c = completion
        completion = nil
        c?(result)
    }
}

/// What callers hand the curl thread: new transfers, cancellations, the stop request.
final class CurlInbox: @unchecked Sendable {
    private let lock = NIOLock()
    private var submitted: [CurlTransfer] = []
    private var cancelled: [CurlTransfer] = []
    private var stopping = false
    private var closed = false
    /// True while a wakeup is on its way and the thread has not drained the inbox yet.
    private var wakeupPending = false
    /// Set by the thread once its multi handle exists; woken under the lock, so never after cleanup.
    private var multi: UnsafeMutableRawPointer?

    func attach(_ multi: UnsafeMutableRawPointer) { lock.withLock { self.multi = multi } }

    /// False once the executor is shutting down.
    func submit(_ transfer: CurlTransfer) -> Bool {
        lock.withLock {
            guard !stopping else { return false }
            submitted.append(transfer)
            wakeLocked()
            return true
        }
    }

    func cancel(_ transfer: CurlTransfer) {
        lock.withLock {
            guard !closed else { return }
            transfer.cancelRequested = true
            cancelled.append(transfer)
            wakeLocked()
        }
    }

    func stop() {
        lock.withLock {
            stopping = true
            wakeupPending = false
            wakeLocked()
        }
    }

    private func wakeLocked() {
        guard !wakeupPending, !closed, let multi else { return }
        wakeupPending = true
        _ = curl_multi_wakeup(multi)
    }

    /// Everything submitted since the last call (those already cancelled apart); the thread calls
    /// this before each perform.
    func drain() -> (submitted: [CurlTransfer], cancelled: [CurlTransfer], stopping: Bool) {
        lock.withLock {
            wakeupPending = false
            defer { submitted.removeAll(keepingCapacity: true); cancelled.removeAll(keepingCapacity: true) }
            var fresh: [CurlTransfer] = [], dropped = cancelled
            for transfer in submitted {
                if transfer.cancelRequested { dropped.append(transfer) } else { fresh.append(transfer) }
            }
            return (fresh, dropped, stopping)
        }
    }

    /// The thread is about to free the multi handle: no more wakeups; returns what arrived meanwhile.
    func close() -> [CurlTransfer] {
        lock.withLock {
            closed = true
            stopping = true
            multi = nil
            defer { submitted.removeAll() }
            return submitted
        }
    }
}
