import Foundation
import NIOConcurrencyHelpers
import WhaleLoad
import WhaleProtocol

/// Reads a note's text and revision as the server has it, by joining it on a fresh socket
/// (protocol 2, full state) and leaving at once.
enum ProbeJoin {
    static func read(socketURL: String, resourceId: String, token: String, timeout: Duration = .seconds(10)) async -> (text: String, revision: Int)? {
        let answer = NIOLockedValueBox<(String, Int)?>(nil)
        let url = SocketURL.appending("protocol=2&whalesim-client=probe", to: socketURL)
        let socket = LeanSocket(url: url, headers: [("ObjectId", resourceId), ("Authorization", token)]) { text in
            guard let e = try? WireCodec.decodeServer(Array(text.utf8)), case .resourceConnectionConf(let conf) = e.message else { return }
            answer.withLockedValue { $0 = (conf.initialState ?? "", conf.revision) }
        }
        guard await socket.connected() else { return nil }
        socket.send(WireCodec.encode(ClientEnvelope(messageId: "probe-final", message: .resourceConnection(resourceId: resourceId, revision: nil))))
        let deadline = ContinuousClock.now + timeout
        while answer.withLockedValue({ $0 }) == nil, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        await socket.close()
        return answer.withLockedValue { $0 }.map { (text: $0.0, revision: $0.1) }
    }
}
