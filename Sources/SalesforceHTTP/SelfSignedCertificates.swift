import Crypto
import Foundation
import NIOSSL
import X509

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
        let caKey = P256.Signing.PrivateKey()
        let caPublic = Certificate.PublicKey(caKey.publicKey)
        let caName = try DistinguishedName {
            OrganizationName("whalesim")
            CommonName("whalesim fake Salesforce test CA")
        }
        let caSKI = SubjectKeyIdentifier(hash: caPublic)
        let ca = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: caPublic,
            notValidBefore: now - 3600, notValidAfter: now + 30 * 86400,
            issuer: caName, subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                caSKI
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey))

        let leafKey = P256.Signing.PrivateKey()
        let leafPublic = Certificate.PublicKey(leafKey.publicKey)
        let leafName = try DistinguishedName {
            OrganizationName("whalesim")
            CommonName("localhost")
        }
        let leaf = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: leafPublic,
            notValidBefore: now - 3600, notValidAfter: now + 30 * 86400,
            issuer: caName, subject: leafName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true, keyEncipherment: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(.init(contentBytes: [127, 0, 0, 1]))])
                SubjectKeyIdentifier(hash: leafPublic)
                AuthorityKeyIdentifier(keyIdentifier: caSKI.keyIdentifier)
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey))

        return SelfSignedCertificates(
            caPEM: try ca.serializeAsPEM().pemString, leafPEM: try leaf.serializeAsPEM().pemString,
            leafKeyPEM: leafKey.pemRepresentation)
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
