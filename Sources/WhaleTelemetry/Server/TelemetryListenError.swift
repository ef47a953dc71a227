/// Why the telemetry endpoint could not listen. Thrown by ``TelemetryServer/start(listen:configuration:source:)``
/// before it serves anything, so a command refuses `--listen` before its load starts; a CLI maps
/// every case to ``exitCode`` (64, a usage error) and prints ``description``.
public enum TelemetryListenError: Error, Equatable, CustomStringConvertible {
    /// The text is not HOST:PORT.
    case malformed(String, reason: String)
    /// Another process (or another endpoint of this one) holds the port.
    case addressInUse(ListenAddress)
    /// The system refused for another reason (unknown host, an address not on this machine, no permission).
    case cannotListen(ListenAddress, reason: String)

    /// The exit code a command ends with when `--listen` is refused: EX_USAGE.
    public var exitCode: Int32 { 64 }

    public var description: String {
        switch self {
        case .malformed(let text, let reason): "--listen '\(text)' is malformed: \(reason)"
        case .addressInUse(let address):
            "--listen \(address): the address is already in use (pick another port, or 0 for a free one)"
        case .cannotListen(let address, let reason): "--listen \(address): cannot listen there: \(reason)"
        }
    }
}
