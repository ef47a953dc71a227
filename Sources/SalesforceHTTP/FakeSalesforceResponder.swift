import Foundation
import Hummingbird
import NIOCore
import SalesforceFake

/// Adapts Hummingbird requests to the sans-I/O `FakeSalesforce` and back; sleeps for the latency
/// the fake's configuration injected.
struct FakeSalesforceResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let fake: FakeSalesforce
    /// `http` or `https`: the scheme clients reached this listener with.
    let scheme: String
    /// `host:port` the listener is bound to, used when a request has no Host header.
    let boundAddress: BoundAddress
    /// Largest body accepted (composite bodies are small; records too).
    static let maxBody = 16 * 1024 * 1024

    func respond(to request: Request, context: Context) async throws -> Response {
        var request = request
        let buffer = try await request.collectBody(upTo: Self.maxBody)
        let host = request.head.authority ?? boundAddress.value
        var sfRequest = SFRequest(
            method: request.method.rawValue, target: request.head.path ?? "/",
            headers: request.headers.map { (name: $0.name.rawName, value: $0.value) },
            body: Array(buffer: buffer))
        sfRequest.baseURL = "\(scheme)://\(host)"
        let response = fake.handle(sfRequest)
        if response.delayMilliseconds > 0 {
            try await Task.sleep(for: .microseconds(Int64(response.delayMilliseconds * 1000)))
        }
        var headers = HTTPFields()
        for (name, value) in response.headers {
            if let field = HTTPFields.Element.Name(name) {
                headers.append(HTTPFields.Element(name: field, value: value))
            }
        }
        return Response(
            status: HTTPResponse.Status(code: response.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
    }
}

/// The bound `host:port` of a listener, filled in once the server runs (port 0 picks one).
final class BoundAddress: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = ""
    private var waiters: [CheckedContinuation<String, Never>] = []

    var value: String { lock.withLock { stored } }

    func set(_ address: String) {
        let toResume: [CheckedContinuation<String, Never>] = lock.withLock {
            stored = address
            defer { waiters = [] }
            return waiters
        }
        for waiter in toResume { waiter.resume(returning: address) }
    }

    /// Waits until the listener has bound.
    func wait() async -> String {
        await withCheckedContinuation { continuation in
            let ready: String? = lock.withLock {
                if stored.isEmpty { waiters.append(continuation); return nil }
                return stored
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
