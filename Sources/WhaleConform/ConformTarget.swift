#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import WhaleProtocol

/// The server a conformance run talks to, and what the suite may assume about it.
public struct ConformTarget: Sendable {
    /// A user the cases sign in as (email and password).
    public struct Login: Sendable, Hashable {
        public var email: String
        public var password: String
        public init(email: String, password: String) {
            self.email = email
            self.password = password
        }
    }

    /// `http://host:port` of the server (REST, GraphQL, `/socket`).
    public var baseURL: String
    /// 1: the original protocol only; 2: whalesim's extensions (`?protocol=2`).
    public var protocolVersion: ProtocolVersion
    /// Two users of one organization (`member`, `colleague`) and one of another (`outsider`).
    public var member: Login
    public var colleague: Login
    public var outsider: Login
    /// The server's HS256 key, when known (embedded, or `--jwt-secret`): lets a case sign a valid
    /// but expired token.
    public var jwtSecret: Data?
    /// Kills and restarts the server (embedded, or `--restart-command`); durability cases need it.
    public var restarter: (any ServerRestarter)?
    /// The server's largest accepted message (protocol 2 answers bigger ones with `tooLarge`).
    public var maxMessageBytes: Int
    /// Messages sent back to back by the flood case; must exceed the server's burst.
    public var floodMessages: Int
    /// The server's rate limit per socket: messages a second, with bursts of twice that (`serve`'s
    /// `--max-messages-per-second`, default 500). The rate edge case sends exactly the burst.
    public var maxMessagesPerSecond: Int
    /// Seconds past a token's `exp` the server may still accept it (clock skew). The
    /// expired-just-now case signs a token expired this long ago plus 30 s (for the difference
    /// between this machine's clock and the server's): a minute ago at the default, 30 s, which
    /// covers clocks kept by NTP (milliseconds apart) many times over while a day-long or
    /// hour-long leeway still fails.
    public var tokenLeewaySeconds: Int
    /// Bytes of ops the slow-reader case writes while its reader is held: enough to fill the
    /// socket buffers between the server and the fault proxy (docs/decisions/0023-conformance-suite.md).
    public var slowReaderBytes: Int
    /// How long a case waits for a frame it expects.
    public var timeout: Duration
    /// How long a case listens for a frame that must not come.
    public var quietPeriod: Duration

    /// The seed's users (Fixtures/whaler/seed.json): ann and bo of Acme, dee of Globex.
    public init(baseURL: String, protocolVersion: ProtocolVersion = .v2) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.protocolVersion = protocolVersion
        member = Login(email: "ann@acme.test", password: "whale-ann-1")
        colleague = Login(email: "bo@acme.test", password: "whale-bo-1")
        outsider = Login(email: "dee@globex.test", password: "whale-dee-1")
        maxMessageBytes = 64 * 1024
        floodMessages = 3000
        maxMessagesPerSecond = 500
        tokenLeewaySeconds = 30
        slowReaderBytes = 6_000_000
        timeout = .seconds(5)
        quietPeriod = .milliseconds(300)
    }

    /// `ws://host:port/socket`.
    public var socketURL: String {
        baseURL.replacingOccurrences(of: "https://", with: "wss://").replacingOccurrences(of: "http://", with: "ws://")
            + "/socket"
    }

    var host: String { URL(string: baseURL)?.host ?? "127.0.0.1" }
    var port: Int { URL(string: baseURL)?.port ?? 80 }
}

/// Kills the server and starts it again on the same address and storage, returning once it
/// answers again. Durability cases call it between an acknowledgement and its broadcast.
public protocol ServerRestarter: Sendable {
    func killAndRestart() async throws
}

/// `--restart-command`: a shell command that kills and restarts the team's server; the suite
/// then waits until `GET /health` (or the login route) answers.
public struct CommandRestarter: ServerRestarter {
    public let command: String
    public let baseURL: String
    public init(command: String, baseURL: String) {
        self.command = command
        self.baseURL = baseURL
    }

    public func killAndRestart() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        try process.run()
        // Reaped here, polling: Foundation's waitUntilExit never returned for a command that left
        // a server running in the background (the shell stayed a zombie, conform hung).
        let pid = process.processIdentifier
        var status: Int32 = 0
        let deadline = ContinuousClock.now + .seconds(120)
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard ContinuousClock.now < deadline else {
                throw ConformFailure("--restart-command did not finish within 120 s")
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        // WEXITSTATUS / WIFEXITED are macros Swift cannot import.
        let exited = status & 0x7f == 0, code = (status >> 8) & 0xff
        guard exited, code == 0 else {
            throw ConformFailure(
                "--restart-command ended with \(exited ? "exit status \(code)" : "signal \(status & 0x7f)")")
        }
        try await waitUntilAnswering(baseURL, within: .seconds(30))
    }
}

/// Polls the server's TCP port until it accepts a connection (or `within` passes).
func waitUntilAnswering(_ baseURL: String, within: Duration) async throws {
    guard let url = URL(string: baseURL), let host = url.host else { throw ConformFailure("bad server URL \(baseURL)") }
    let port = url.port ?? 80
    let deadline = ContinuousClock.now + within
    while ContinuousClock.now < deadline {
        if TCPProbe.accepts(host: host, port: port) { return }
        try? await Task.sleep(for: .milliseconds(50))
    }
    throw ConformFailure("the server at \(baseURL) did not answer within \(within) after the restart")
}
