import HummingbirdCore
import Logging
import NIOCore
import WhaleTLS

/// Hummingbird's HTTP/1.1 child channel behind a ``TLSHandler``: the fake Salesforce's HTTPS
/// listener, on the system's OpenSSL instead of HummingbirdTLS and its BoringSSL
/// (docs/decisions/0055-tls-on-openssl.md).
struct TLSServerChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let tls: TLSContext

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(TLSHandler(context: tls))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Base.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension TLSServerChannel: HTTPChannelHandler where Base: HTTPChannelHandler {
    var responder: HTTPChannelHandler.Responder { base.responder }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 over TLS with `tls`, a server ``TLSContext``.
    static func http1(tls: TLSContext) -> HTTPServerBuilder {
        .init { responder in TLSServerChannel(base: HTTP1Channel(responder: responder), tls: tls) }
    }
}
