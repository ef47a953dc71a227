import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A JSON POST with the standard library's HTTP client (the bench's set-up calls only).
package func postJSON(_ url: String, _ body: [String: Any], token: String? = nil) async throws -> [String: Any] {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = "POST"
    request.httpBody = try JSONSerialization.data(withJSONObject: body)
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    if let token { request.setValue(token, forHTTPHeaderField: "Authorization") }
    let data: Data = try await withCheckedThrowingContinuation { continuation in
        URLSession.shared.dataTask(with: request) { data, _, error in
            if let error {
                continuation.resume(throwing: error)
            } else {
                continuation.resume(returning: data ?? Data())
            }
        }.resume()
    }
    guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw BenchError("\(url) answered with something that is not a JSON object")
    }
    return object
}
