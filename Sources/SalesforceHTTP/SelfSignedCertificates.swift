import Foundation
import NIOSSL
import WhaleCrypto

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

    /// A NIOSSL server configuration presenting the leaf (then the CA) certificate.
    public func serverTLSConfiguration() throws -> TLSConfiguration {
        let leaf = try NIOSSLCertificate(bytes: Array(leafPEM.utf8), format: .pem)
        let ca = try NIOSSLCertificate(bytes: Array(caPEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(leafKeyPEM.utf8), format: .pem)
        return TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(leaf), .certificate(ca)], privateKey: .privateKey(key))
    }

    /// Writes the CA certificate (PEM) to `file`, creating its directory.
    public func writeCA(to file: URL) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(caPEM.utf8).write(to: file, options: .atomic)
    }
}
