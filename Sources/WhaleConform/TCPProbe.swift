#if canImport(Glibc)
    import Glibc
#endif
import Foundation

/// Whether something accepts TCP connections on an IPv4 address (a restarted server listening
/// again). Blocking, with the kernel's loopback connect time: microseconds.
enum TCPProbe {
    static func accepts(host: String, port: Int) -> Bool {
        let address = host == "localhost" ? "127.0.0.1" : host
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, address, &sin.sin_addr) == 1 else { return false }
        let result = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return result == 0
    }
}
