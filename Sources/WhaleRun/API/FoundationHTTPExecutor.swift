import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WhaleLoad

/// An ``HTTPExecutor`` over URLSession (libcurl's easy interface underneath, on Linux).
/// Kept as the fallback executor; the runner uses ``HTTPExecutors/make(_:caFile:)``'s choice.
final class FoundationHTTPExecutor: HTTPExecutor, @unchecked Sendable {
    private let session: URLSession

    init(maxConnections: Int = 64) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = maxConnections
        session = URLSession(configuration: configuration)
    }

    func execute(_ request: HTTPRequestSpec, timeout: Duration) async throws(HTTPTransportError) -> HTTPResult {
        guard let url = URL(string: request.url) else { throw HTTPTransportError(.other, "not a URL: \(request.url)") }
        var r = URLRequest(url: url)
        r.httpMethod = request.method
        r.timeoutInterval = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        for (name, value) in request.headers { r.addValue(value, forHTTPHeaderField: name) }
        if let body = request.body { r.httpBody = Data(body) }
        do {
            let (data, response) = try await session.data(for: r)
            guard let http = response as? HTTPURLResponse else { throw HTTPTransportError(.other, "not an HTTP response") }
            let headers = http.allHeaderFields.compactMap { k, v -> (String, String)? in
                guard let k = k as? String else { return nil }
                return (k.lowercased(), "\(v)")
            }
            return HTTPResult(status: http.statusCode, headers: headers, body: Array(data))
        } catch let e as HTTPTransportError {
            throw e
        } catch let e as URLError {
            switch e.code {
            case .timedOut: throw HTTPTransportError(.timeout, "\(request.method) \(request.url): timed out")
            case .cannotConnectToHost, .cannotFindHost: throw HTTPTransportError(.connect, "\(request.method) \(request.url): \(e.localizedDescription)")
            case .networkConnectionLost: throw HTTPTransportError(.reset, "\(request.method) \(request.url): connection lost")
            case .secureConnectionFailed, .serverCertificateUntrusted: throw HTTPTransportError(.tls, "\(request.url): \(e.localizedDescription)")
            default: throw HTTPTransportError(.other, "\(request.method) \(request.url): \(e.localizedDescription)")
            }
        } catch {
            throw HTTPTransportError(.other, "\(request.method) \(request.url): \(error)")
        }
    }

    func shutdown() async { session.invalidateAndCancel() }
}
