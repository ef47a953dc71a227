import CLibcrypto

/// A throwaway certificate authority and a server certificate it signed, as PEM, made by libcrypto:
/// P-256 keys, ECDSA with SHA-256, v3. The CA is critical `CA:TRUE, pathlen:0` for signing certificates
/// only; the leaf is a TLS server certificate for `localhost` (DNS) and 127.0.0.1 (IP), with subject and
/// authority key identifiers.
public struct CertificateAuthority: Sendable {
    /// The CA's certificate: what a client must trust.
    public let caPEM: String
    /// The server's certificate.
    public let leafPEM: String
    /// The server's private key (PKCS #8).
    public let leafKeyPEM: String

    /// Why libcrypto could not make them.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Fresh keys and certificates valid from `notBefore` to `notAfter` (seconds since 1970).
    public static func make(notBefore: Int64, notAfter: Int64) throws(Failure) -> CertificateAuthority {
        var made = whale_make_certificates(notBefore, notAfter)
        defer { whale_certificates_free(&made) }
        guard let ca = made.ca_certificate, let leaf = made.leaf_certificate, let key = made.leaf_private_key else {
            throw Failure(description: made.error.map { String(cString: $0) } ?? "libcrypto made no certificates")
        }
        return CertificateAuthority(
            caPEM: String(cString: ca), leafPEM: String(cString: leaf), leafKeyPEM: String(cString: key))
    }
}
