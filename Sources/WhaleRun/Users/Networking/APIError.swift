/// A Whaler or Salesforce call that did not give what the app needs: which call, and why.
/// `kind` is the error kind counted in the run's metrics (`http:500`, `graphql`, `transport:timeout`...).
public struct APIError: Error, CustomStringConvertible, Sendable {
    public var kind: String
    public var message: String
    public init(_ kind: String, _ message: String) {
        self.kind = kind
        self.message = message
    }
    public var description: String { "\(kind): \(message)" }
}
