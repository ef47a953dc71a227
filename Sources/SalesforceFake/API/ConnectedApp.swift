import Foundation

/// A connected app the OAuth endpoints accept (Salesforce's consumer key and secret).
///
/// Loaded from `connected-apps.json` in the org directory when present:
/// ```json
/// [{"clientId": "whaler-app", "clientSecret": "s3cret", "redirectURIs": ["http://localhost:3000/oauth/callback"],
///   "runAsUsername": "admin@whaler.test"}]
/// ```
/// otherwise `ConnectedApp.defaults` is used.
public struct ConnectedApp: Sendable, Codable, Equatable {
    /// The consumer key (`client_id`).
    public var clientId: String
    /// The consumer secret; it keys the `signature` HMAC of every token response.
    public var clientSecret: String
    /// Callback URLs accepted by the authorize endpoint; empty accepts any.
    public var redirectURIs: [String]
    /// The user a `client_credentials` grant acts as, and the authorize endpoint's user when no
    /// `login_hint` names one. Nil means the org's first login principal.
    public var runAsUsername: String?

    public init(clientId: String, clientSecret: String, redirectURIs: [String] = [], runAsUsername: String? = nil) {
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.redirectURIs = redirectURIs
        self.runAsUsername = runAsUsername
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        clientId = try c.decode(String.self, forKey: .clientId)
        clientSecret = try c.decode(String.self, forKey: .clientSecret)
        redirectURIs = try c.decodeIfPresent([String].self, forKey: .redirectURIs) ?? []
        runAsUsername = try c.decodeIfPresent(String.self, forKey: .runAsUsername)
    }

    /// Used when the org directory has no `connected-apps.json`: one app, any redirect URI.
    public static let defaults = [ConnectedApp(clientId: "whalesim-client", clientSecret: "whalesim-secret")]

    /// Reads `connected-apps.json` from `directory`, or returns `defaults` when the file is absent.
    /// A present but unreadable file is an error (the message names the file).
    public static func load(directory: URL) throws -> [ConnectedApp] {
        let file = directory.appendingPathComponent("connected-apps.json")
        guard FileManager.default.fileExists(atPath: file.path) else { return defaults }
        do {
            let apps = try JSONDecoder().decode([ConnectedApp].self, from: Data(contentsOf: file))
            guard !apps.isEmpty else { throw ConnectedAppError(message: "\(file.path): no connected app listed") }
            return apps
        } catch let error as ConnectedAppError {
            throw error
        } catch {
            throw ConnectedAppError(message: "\(file.path): \(error)")
        }
    }
}

/// A bad `connected-apps.json`.
public struct ConnectedAppError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
