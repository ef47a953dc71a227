import WhaleOT

extension WireCodec {
    // MARK: Server → client

    public static func decodeServer(_ bytes: some Collection<UInt8>, maxBytes: Int = defaultMaxBytes)
        throws(ProtocolError) -> ServerEnvelope
    {
        try decodeServer(Array(bytes), maxBytes: maxBytes)
    }

    /// The same for bytes already in an array: no generic copy (the load runner's hot path).
    public static func decodeServer(_ bytes: [UInt8], maxBytes: Int = defaultMaxBytes) throws(ProtocolError)
        -> ServerEnvelope
    {
        if bytes.count <= maxBytes, let envelope = HotServerDecoder.decode(bytes) { return envelope }
        return try decodeServerGenerally(bytes, maxBytes: maxBytes)
    }

    /// The same for bytes that lie in a reader's buffer (the epoll loop's): the usual op is
    /// decoded in place, with no array made of it; anything else is copied for the general decoder.
    public static func decodeServer(buffer bytes: UnsafeRawBufferPointer, maxBytes: Int = defaultMaxBytes)
        throws(ProtocolError) -> ServerEnvelope
    {
        if bytes.count <= maxBytes, let envelope = HotServerDecoder.decode(bytes.bindMemory(to: UInt8.self)) {
            return envelope
        }
        return try decodeServerGenerally(Array(bytes), maxBytes: maxBytes)
    }

    /// Every message through the JSON tree (`decodeServer` takes `docChangeReturnOps` in its
    /// usual form by ``HotServerDecoder`` first; tests compare the two).
    static func decodeServerGenerally(_ bytes: [UInt8], maxBytes: Int) throws(ProtocolError) -> ServerEnvelope {
        var (envelope, type, messageId) = try open(bytes, maxBytes: maxBytes)
        let senderId = try envelope.optionalString("senderId") ?? ""
        var data = try FieldReader(try envelope.required("data"), path: "data")
        try envelope.finish()
        let message: ServerMessage
        switch type {
        case "resourceConnectionConf":
            let resourceId = try data.string("resourceId"), revision = try data.int("revision")
            let initialState = try data.optionalString("initialState")
            var missed: [MissedOp]?
            if let list = data.optional("missedOps") {
                guard case .array(let entries) = list else {
                    throw ProtocolError(.malformedMessage, "data.missedOps must be an array, got \(list.kind)")
                }
                missed = []
                for (i, entry) in entries.enumerated() {
                    var reader = try FieldReader(entry, path: "data.missedOps[\(i)]")
                    let op = try reader.operation(), opId = try reader.optionalString("opId")
                    try reader.finish()
                    missed?.append(MissedOp(op: op, opId: opId))
                }
            }
            guard (initialState == nil) != (missed == nil) else {
                throw ProtocolError(
                    .malformedMessage,
                    "resourceConnectionConf carries exactly one of data.initialState and data.missedOps")
            }
            message = .resourceConnectionConf(
                ResourceConnectionConf(
                    resourceId: resourceId, revision: revision, initialState: initialState, missedOps: missed))
        case "docChangeReturnOps":
            let resourceId = try data.string("resourceId"), opId = try data.optionalString("opId")
            let op = try data.operation()
            var cursor: AuthorCursor?
            if let value = data.optional("cursor") {
                var reader = try FieldReader(value, path: "data.cursor")
                cursor = AuthorCursor(
                    userId: try reader.string("userId"), clientId: ClientID(try reader.string("clientId")),
                    selection: Selection(anchor: try reader.int("anchor"), head: try reader.int("head")))
                try reader.finish()
            }
            message = .docChangeReturnOps(resourceId: resourceId, op: op, opId: opId, cursor: cursor)
        case "resourceUpdate":
            let resourceId = try data.string("resourceId"), sender = try data.string("senderId")
            // Protocol 2 carries all three extras or none (the original sends none).
            let recordType = try data.optionalString("recordType"), record = data.optional("record"),
                seq = try data.optionalInt("seq")
            var update: RecordUpdate?
            if let recordType, let record, let seq {
                update = RecordUpdate(recordType: recordType, record: record, seq: seq)
            } else if recordType != nil || record != nil || seq != nil {
                throw ProtocolError(
                    .malformedMessage,
                    "resourceUpdate carries all of data.recordType, data.record and data.seq, or none")
            }
            message = .resourceUpdate(resourceId: resourceId, senderId: sender, update: update)
        case "error":
            let codeText = try data.string("code")
            guard let code = ProtocolErrorCode(rawValue: codeText) else {
                throw ProtocolError(.malformedMessage, "unknown error code \"\(codeText)\"")
            }
            message = .error(
                ProtocolError(code, try data.string("message"), inReplyTo: try data.optionalString("inReplyTo")))
        case "cursorUpdate":
            let cursor = RemoteCursor(
                resourceId: try data.string("resourceId"), userId: try data.string("userId"),
                clientId: ClientID(try data.string("clientId")), rev: try data.int("rev"),
                selection: Selection(anchor: try data.int("anchor"), head: try data.int("head")))
            message = .cursorUpdate(cursor)
        case "presenceLeft":
            message = .presenceLeft(
                resourceId: try data.string("resourceId"), userId: try data.string("userId"),
                clientId: ClientID(try data.string("clientId")))
        case "poolJoined":
            let poolId = try data.string("poolId"), seq = try data.int("seq")
            guard seq >= 0 else { throw ProtocolError(.malformedMessage, "data.seq must be 0 or more, got \(seq)") }
            message = .poolJoined(poolId: poolId, seq: seq)
        default:
            throw ProtocolError(.unknownType, "unknown message type \"\(type)\"", inReplyTo: messageId)
        }
        try data.finish()
        return ServerEnvelope(senderId: senderId, messageId: messageId, message: message)
    }

    public static func encode(_ envelope: ServerEnvelope) -> String {
        var data: [(String, WireJSON)]
        switch envelope.message {
        case .resourceConnectionConf(let conf):
            data = [("resourceId", .string(conf.resourceId))]
            if let initialState = conf.initialState { data.append(("initialState", .string(initialState))) }
            data.append(("revision", .int(conf.revision)))
            if let missed = conf.missedOps {
                data.append(
                    (
                        "missedOps",
                        .array(
                            missed.map { entry in
                                var members = opMembers(entry.op)
                                if let opId = entry.opId { members.append(("opId", .string(opId))) }
                                return .object(members)
                            })
                    ))
            }
        case .docChangeReturnOps(let resourceId, let op, let opId, let cursor):
            data = [("resourceId", .string(resourceId))] + opMembers(op)
            if let opId { data.append(("opId", .string(opId))) }
            if let cursor {
                data.append(
                    (
                        "cursor",
                        WireJSON.object([
                            ("userId", .string(cursor.userId)), ("clientId", .string(cursor.clientId.rawValue)),
                            ("anchor", .int(cursor.selection.anchor)), ("head", .int(cursor.selection.head)),
                        ])
                    ))
            }
        case .resourceUpdate(let resourceId, let senderId, let update):
            data = [("resourceId", .string(resourceId)), ("senderId", .string(senderId))]
            if let update {
                data += [
                    ("recordType", .string(update.recordType)), ("record", update.record), ("seq", .int(update.seq)),
                ]
            }
        case .error(let error):
            data = [("code", .string(error.code.rawValue)), ("message", .string(error.message))]
            if let inReplyTo = error.inReplyTo { data.append(("inReplyTo", .string(inReplyTo))) }
        case .cursorUpdate(let cursor):
            data = [
                ("resourceId", .string(cursor.resourceId)), ("userId", .string(cursor.userId)),
                ("clientId", .string(cursor.clientId.rawValue)), ("rev", .int(cursor.rev)),
                ("anchor", .int(cursor.selection.anchor)), ("head", .int(cursor.selection.head)),
            ]
        case .presenceLeft(let resourceId, let userId, let clientId):
            data = [
                ("resourceId", .string(resourceId)), ("userId", .string(userId)),
                ("clientId", .string(clientId.rawValue)),
            ]
        case .poolJoined(let poolId, let seq):
            data = [("poolId", .string(poolId)), ("seq", .int(seq))]
        }
        return WireJSON.object([
            ("senderId", .string(envelope.senderId)),
            ("messageId", .string(envelope.messageId)),
            ("type", .string(envelope.message.typeName)),
            ("data", .object(data)),
        ]).serialized
    }
}
