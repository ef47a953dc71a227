import NIOConcurrencyHelpers
import WhaleOT
import WhaleProtocol

/// A scripted member of one note: it joins, sends the changes the script gives it (each at the
/// revision the script names, so concurrency is chosen, not raced), and takes acks and
/// broadcasts by `messageId`. It keeps no OT state of its own: the case computes what the server
/// must answer with the oracle (WhaleOT's transform and apply) and compares.
final class NoteClient: Sendable {
    let socket: ConformSocket
    let resourceId: String
    let version: ProtocolVersion
    /// Prefix of this client's message and op ids (unique per case and client).
    let tag: String
    private let counter = Counter()

    init(socket: ConformSocket, resourceId: String, version: ProtocolVersion, tag: String) {
        self.socket = socket
        self.resourceId = resourceId
        self.version = version
        self.tag = tag
    }

    var name: String { socket.name }

    /// Joins (optionally resyncing from `revision`, protocol 2) and returns the server's answer.
    func join(revision: Int? = nil) async throws(ConformFailure) -> ResourceConnectionConf {
        let id = "\(tag)-join-\(counter.next())"
        socket.send(
            ClientEnvelope(messageId: id, message: .resourceConnection(resourceId: resourceId, revision: revision)))
        guard
            case .resourceConnectionConf(let conf)? = await socket.take(where: {
                $0.messageId == id && $0.message.typeName == "resourceConnectionConf"
            })?.message
        else {
            throw ConformFailure(
                "\(name) sent resourceConnection \(id) for \(resourceId) and got no resourceConnectionConf within \(socket.timeout); \(socket.recent())"
            )
        }
        guard conf.resourceId == resourceId else {
            throw ConformFailure("\(name)'s join of \(resourceId) was answered for \(conf.resourceId)")
        }
        return conf
    }

    /// Sends `op` based on server revision `rev`; returns the `messageId` (and the op id it carries
    /// in protocol 2, or `opId` when the script resends one).
    @discardableResult
    func send(_ op: Operation, rev: Int, opId: String? = nil) -> (messageId: String, opId: String?) {
        let n = counter.next()
        let messageId = "\(tag)-m\(n)"
        let id = version == .v2 ? (opId ?? "\(tag):\(n)") : nil
        socket.send(
            ClientEnvelope(
                messageId: messageId, message: .docChange(DocChange(resourceId: resourceId, rev: rev, op: op, opId: id))
            ))
        return (messageId, id)
    }

    /// The `docChangeReturnOps` carrying `messageId` (the ack on the sender's socket, the
    /// broadcast on everyone else's).
    func takeOp(_ messageId: String, within: Duration? = nil) async throws(ConformFailure) -> Operation {
        guard
            case .docChangeReturnOps(_, let op, _, _)? = await socket.take(
                within: within,
                where: {
                    $0.messageId == messageId && $0.message.typeName == "docChangeReturnOps"
                })?.message
        else {
            throw ConformFailure(
                "\(name) never received docChangeReturnOps \(messageId) within \(within ?? socket.timeout); \(socket.recent())"
            )
        }
        return op
    }

    /// Sends `op` at `rev` and waits for its acknowledgement; returns the op as the server applied it.
    @discardableResult
    func apply(_ op: Operation, rev: Int) async throws(ConformFailure) -> Operation {
        let sent = send(op, rev: rev)
        return try await takeOp(sent.messageId)
    }

    /// The `messageId`s of every `docChangeReturnOps` this socket received, in arrival order.
    var opMessageIds: [String] {
        socket.messages.filter { $0.message.typeName == "docChangeReturnOps" }.map(\.messageId)
    }

    func close() async { await socket.close() }
}

/// A thread-safe counter for message ids.
final class Counter: Sendable {
    private let value = NIOLockedValueBox(0)
    func next() -> Int {
        value.withLockedValue {
            $0 += 1; return $0
        }
    }
}
