import WhaleOT

/// The Whaler websocket envelope `{"senderId","messageId","type","data"}` and every message type
/// of PROTOCOL.md, strictly decoded: anything malformed is a ``ProtocolError`` with the code the
/// server would answer (`malformedMessage`, `unknownType`, `badOperation`, `tooLarge`).
///
/// ```swift
/// let envelope = try WireCodec.decodeClient(Array(#"{"messageId":"m1","type":"resourceConnection","data":{"resourceId":"a1"}}"#.utf8))
/// let text = WireCodec.encode(envelope)
/// ```
public enum WireCodec {
    /// The original server reads at most 512 bytes per client message.
    public static let originalMaxBytes = 512
    /// whalesim's limit for protocol 2.
    public static let defaultMaxBytes = 1 << 20

    // MARK: Client → server

    public static func decodeClient(_ bytes: some Collection<UInt8>, maxBytes: Int = defaultMaxBytes)
        throws(ProtocolError) -> ClientEnvelope
    {
        try decodeClient(Array(bytes), maxBytes: maxBytes)
    }

    /// The same for bytes already in an array: no generic copy (the server's hot path).
    public static func decodeClient(_ bytes: [UInt8], maxBytes: Int = defaultMaxBytes) throws(ProtocolError)
        -> ClientEnvelope
    {
        var (envelope, type, messageId) = try open(bytes, maxBytes: maxBytes)
        _ = envelope.optional("senderId")  // clients omit it; tolerated if present
        var data = try FieldReader(try envelope.required("data"), path: "data")
        try envelope.finish()
        let message: ClientMessage
        switch type {
        case "resourceConnection":
            message = .resourceConnection(
                resourceId: try data.string("resourceId"), revision: try data.optionalInt("revision"))
        case "docChange":
            let resourceId = try data.string("resourceId"), rev = try data.int("rev"),
                opId = try data.optionalString("opId")
            message = .docChange(DocChange(resourceId: resourceId, rev: rev, op: try data.operation(), opId: opId))
        case "cursorUpdate":
            let resourceId = try data.string("resourceId"), rev = try data.int("rev")
            let selection = Selection(anchor: try data.int("anchor"), head: try data.int("head"))
            guard selection.anchor >= 0, selection.head >= 0 else {
                throw ProtocolError(
                    .malformedMessage, "data.anchor and data.head must not be negative", inReplyTo: messageId)
            }
            message = .cursorUpdate(resourceId: resourceId, rev: rev, selection: selection)
        default:
            throw ProtocolError(.unknownType, "unknown message type \"\(type)\"", inReplyTo: messageId)
        }
        do { try data.finish() } catch { throw ProtocolError(error.code, error.message, inReplyTo: messageId) }
        return ClientEnvelope(messageId: messageId, message: message)
    }

    public static func encode(_ envelope: ClientEnvelope) -> String {
        var data: [(String, WireJSON)]
        switch envelope.message {
        case .resourceConnection(let resourceId, let revision):
            data = [("resourceId", .string(resourceId))]
            if let revision { data.append(("revision", .int(revision))) }
        case .docChange(let change):
            data = [("resourceId", .string(change.resourceId)), ("rev", .int(change.rev))]
            data += opMembers(change.op)
            if let opId = change.opId { data.append(("opId", .string(opId))) }
        case .cursorUpdate(let resourceId, let rev, let selection):
            data = [
                ("resourceId", .string(resourceId)), ("rev", .int(rev)), ("anchor", .int(selection.anchor)),
                ("head", .int(selection.head)),
            ]
        }
        return WireJSON.object([
            ("messageId", .string(envelope.messageId)),
            ("type", .string(envelope.message.typeName)),
            ("data", .object(data)),
        ]).serialized
    }

    // MARK: Shared

    static func open(_ bytes: [UInt8], maxBytes: Int) throws(ProtocolError) -> (FieldReader, String, String) {
        guard bytes.count <= maxBytes else {
            throw ProtocolError(.tooLarge, "message of \(bytes.count) bytes exceeds the limit of \(maxBytes)")
        }
        let json: WireJSON
        do { json = try WireJSON.parse(bytes) } catch { throw ProtocolError(.malformedMessage, error.description) }
        var envelope = try FieldReader(json, path: "")
        let messageId = try envelope.string("messageId")
        let type: String
        do { type = try envelope.string("type") } catch {
            throw ProtocolError(error.code, error.message, inReplyTo: messageId)
        }
        return (envelope, type, messageId)
    }

    static func opMembers(_ op: Operation) -> [(String, WireJSON)] {
        let wire = op.wire
        return [("n", .array(wire.n.map(WireJSON.int))), ("s", .array(wire.s.map(WireJSON.string)))]
    }
}
