import Foundation
import NIOConcurrencyHelpers
import WhaleLoad
import WhaleOT
import WhaleProtocol

/// Reads a note's text and revision as the server has it, by joining it on a fresh socket
/// (protocol 2, full state) and leaving at once.
enum ProbeJoin {
    static func read(socketURL: String, resourceId: String, token: String, timeout: Duration = .seconds(10)) async -> (
        text: String, revision: Int
    )? {
        let answer = NIOLockedValueBox<(String, Int)?>(nil)
        let url = SocketURL.appending("protocol=2&whalesim-client=probe", to: socketURL)
        let socket = LeanSocket(url: url, headers: [("ObjectId", resourceId), ("Authorization", token)]) { text in
            guard let e = try? WireCodec.decodeServer(Array(text.utf8)),
                case .resourceConnectionConf(let conf) = e.message
            else { return }
            answer.withLockedValue { $0 = (conf.initialState ?? "", conf.revision) }
        }
        guard await socket.connected(timeout: .seconds(5)) else { return nil }
        socket.send(
            WireCodec.encode(
                ClientEnvelope(
                    messageId: "probe-final", message: .resourceConnection(resourceId: resourceId, revision: nil))))
        let deadline = ContinuousClock.now + timeout
        while answer.withLockedValue({ $0 }) == nil, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        await socket.close()
        return answer.withLockedValue { $0 }.map { (text: $0.0, revision: $0.1) }
    }
}

extension ProbeJoin {
    /// The note's ops after `fromRevision` as the server holds them, by a protocol-2 resync from
    /// that revision on a fresh socket (the answer's `missedOps`); nil when the server answers with
    /// its full state instead (it offers no resync, or no longer knows that revision) or not at all.
    static func account(
        socketURL: String, resourceId: String, token: String, fromRevision: Int,
        timeout: Duration = .seconds(20)
    ) async -> [(opId: String?, op: WhaleOT.Operation)]? {
        let answer = NIOLockedValueBox<[(opId: String?, op: WhaleOT.Operation)]??>(nil)
        let url = SocketURL.appending("protocol=2&whalesim-client=account", to: socketURL)
        let socket = LeanSocket(
            url: url, headers: [("ObjectId", resourceId), ("Authorization", token)], maxFrameSize: 1 << 28
        ) { text in
            guard let e = try? WireCodec.decodeServer(Array(text.utf8)),
                case .resourceConnectionConf(let conf) = e.message
            else { return }
            answer.withLockedValue { $0 = .some(conf.missedOps.map { $0.map { (opId: $0.opId, op: $0.op) } }) }
        }
        guard await socket.connected(timeout: .seconds(5)) else { return nil }
        socket.send(
            WireCodec.encode(
                ClientEnvelope(
                    messageId: "account", message: .resourceConnection(resourceId: resourceId, revision: fromRevision)))
        )
        let deadline = ContinuousClock.now + timeout
        while answer.withLockedValue({ $0 }) == nil, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        await socket.close()
        return answer.withLockedValue { $0 } ?? nil
    }
}
