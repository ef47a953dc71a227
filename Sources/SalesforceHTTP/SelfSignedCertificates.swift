import Foundation
import WhaleCrypto
import WhaleTLS

/// A throwaway certificate authority and a server certificate it signed, made at start-up so HTTPS
/// needs no files in the repository. The leaf names `127.0.0.1` (IP) and `localhost` (DNS); clients
/// trust the CA file (`REQUESTS_CA_BUNDLE=…`, `curl --cacert …`).
public struct SelfSignedCertificates: Sendable {
    /// The CA certificate, PEM: what a client must trust.
    public let caPEM: String
    /// The server certificate, PEM.
    public let leafPEM: String
    let leafKeyPEM: String

    /// Generates a fresh P-256 CA and leaf valid from an hour ago for 30 days.
    public static func generate(now: Date = Date()) throws -> SelfSignedCertificates {
        let from = Int64(now.timeIntervalSince1970)
        let made = try CertificateAuthority.make(notBefore: from - 3600, notAfter: from + 30 * 86400)
        return SelfSignedCertificates(caPEM: made.caPEM, leafPEM: made.leafPEM, leafKeyPEM: made.leafKeyPEM)
    }

    /// A server TLS context presenting the leaf (then the CA) certificate.
    public func serverTLSContext() throws(TLSError) -> TLSContext {
        try TLSContext.server(certificatePEM: leafPEM, chainPEM: caPEM, privateKeyPEM: leafKeyPEM)
    }

    /// Writes the CA certificate (PEM) to `file`, creating its directory.
    public func writeCA(to file: URL) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(caPEM.utf8).write(to: file, options: .atomic)
    }
}
