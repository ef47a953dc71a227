import CLibssl

/// A TLS configuration on the system's OpenSSL (libssl): a server's certificate and key, or a
/// client's trust (the system store plus an optional CA file). Shared by every connection made
/// with it; ``TLSHandler`` runs one connection.
///
/// ```swift
/// let server = try TLSContext.server(certificatePEM: leaf, chainPEM: ca, privateKeyPEM: key)
/// let client = try TLSContext.client(caFile: "/tmp/ca.pem")
/// ```
public final class TLSContext: @unchecked Sendable {
    // @unchecked: OpenSSL's SSL_CTX is safe to share once set up, which init finishes.
    let pointer: OpaquePointer
    /// Whether connections made with it accept (server) or connect (client).
    public let isServer: Bool

    private init(pointer: OpaquePointer, isServer: Bool) {
        self.pointer = pointer
        self.isServer = isServer
    }

    deinit { whale_tls_ctx_free(pointer) }

    /// A server presenting `certificatePEM` (then `chainPEM`, the CA that signed it) with `privateKeyPEM`.
    public static func server(certificatePEM: String, chainPEM: String?, privateKeyPEM: String) throws(TLSError)
        -> TLSContext
    {
        var err = [CChar](repeating: 0, count: 512)
        let made: OpaquePointer? = certificatePEM.withCString { cert in
            privateKeyPEM.withCString { key in
                if let chainPEM {
                    return chainPEM.withCString { whale_tls_server_ctx(cert, $0, key, &err, err.count) }
                }
                return whale_tls_server_ctx(cert, nil, key, &err, err.count)
            }
        }
        guard let made else { throw TLSError(message: err) }
        return TLSContext(pointer: made, isServer: true)
    }

    /// A client that trusts the system's certificate authorities and, with `caFile`, those in that PEM file.
    public static func client(caFile: String? = nil) throws(TLSError) -> TLSContext {
        var err = [CChar](repeating: 0, count: 512)
        let made: OpaquePointer? =
            if let caFile { caFile.withCString { whale_tls_client_ctx($0, &err, err.count) } } else {
                whale_tls_client_ctx(nil, &err, err.count)
            }
        guard let made else { throw TLSError(message: err) }
        return TLSContext(pointer: made, isServer: false)
    }
}

/// A TLS failure, in OpenSSL's words (`TLS handshake failed: certificate verify failed: ...`).
public struct TLSError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }

    /// From a C function's NUL-terminated message buffer.
    init(message: [CChar]) {
        let bytes = message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        description = String(decoding: bytes, as: UTF8.self)
    }
}
