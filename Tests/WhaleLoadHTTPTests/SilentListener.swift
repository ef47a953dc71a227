#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP socket on 127.0.0.1 that listens but never accepts or answers: connections complete in
/// the kernel's backlog, requests go unanswered, so a client can only time out.
final class SilentListener: @unchecked Sendable {
    let port: Int
    private var descriptor: Int32

    init() throws {
        (descriptor, port) = try Self.bound()
        guard listen(descriptor, 512) == 0 else { throw SocketError(message: "listen: errno \(errno)") }
    }

    func close() {
        if descriptor >= 0 { _ = closeSocket(descriptor) }
        descriptor = -1
    }

    /// A port nothing listens on (bound, then closed), for a refused connection.
    static func unusedPort() throws -> Int {
        let (descriptor, port) = try bound()
        _ = closeSocket(descriptor)
        return port
    }

    private static func bound() throws -> (Int32, Int) {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw SocketError(message: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard ok else {
            _ = closeSocket(descriptor)
            throw SocketError(message: "bind: errno \(errno)")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    private static func closeSocket(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
            Glibc.close(descriptor)
        #else
            Darwin.close(descriptor)
        #endif
    }
    private func closeSocket(_ descriptor: Int32) -> Int32 { Self.closeSocket(descriptor) }

    struct SocketError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
