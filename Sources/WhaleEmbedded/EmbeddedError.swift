/// An embedded part (a server child, the lazyfs mount) that could not start; the message says why.
/// A run reports it as it reports its own start failures: the message alone.
public struct EmbeddedError: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
