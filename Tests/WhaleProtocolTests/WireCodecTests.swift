import Testing
import WhaleOT
@testable import WhaleProtocol

@Suite struct WireCodecTests {
    @Test func decodesTheOriginalDocChange() throws {
        let text =
            #"{"messageId":"m1","type":"docChange","data":{"resourceId":"a1","rev":3,"n":[6,0,4],"s":["","w",""]}}"#
        let envelope = try WireCodec.decodeClient(Array(text.utf8))
        guard case .docChange(let change) = envelope.message else { Issue.record("not a docChange"); return }
        #expect(change.rev == 3)
        #expect(change.op.description == #"[r6, i"w", r4]"#)
        #expect(change.opId == nil)
        #expect(WireCodec.encode(envelope) == text)
    }

    @Test func everyClientMessageRoundTrips() throws {
        var op = Operation(); op.retain(2); op.insert("é👍"); op.delete(1)
        let envelopes = [
            ClientEnvelope(messageId: "c1:j1", message: .resourceConnection(resourceId: "acc", revision: nil)),
            ClientEnvelope(messageId: "c1:j2", message: .resourceConnection(resourceId: "acc", revision: 7)),
            ClientEnvelope(
                messageId: "c1:3", message: .docChange(DocChange(resourceId: "acc", rev: 2, op: op, opId: "c1:3"))),
            ClientEnvelope(
                messageId: "c1:k4",
                message: .cursorUpdate(resourceId: "acc", rev: 2, selection: Selection(anchor: 5, head: 1))),
        ]
        for envelope in envelopes {
            #expect(try WireCodec.decodeClient(Array(WireCodec.encode(envelope).utf8)) == envelope)
        }
    }

    @Test func everyServerMessageRoundTrips() throws {
        var op = Operation(); op.insert("x\n\"y\""); op.retain(3)
        let messages: [ServerMessage] = [
            .resourceConnectionConf(ResourceConnectionConf(resourceId: "a", revision: 4, initialState: "hello")),
            .resourceConnectionConf(
                ResourceConnectionConf(
                    resourceId: "a", revision: 4,
                    missedOps: [MissedOp(op: op, opId: "c2:1"), MissedOp(op: op, opId: nil)])),
            .docChangeReturnOps(resourceId: "a", op: op, opId: "c1:9"),
            .docChangeReturnOps(resourceId: "a", op: op, opId: nil),
            .docChangeReturnOps(
                resourceId: "a", op: op, opId: "c1:9",
                cursor: AuthorCursor(userId: "u1", clientId: "c1", selection: Selection(anchor: 6, head: 2))),
            .resourceUpdate(resourceId: "org1", senderId: "client-uuid"),
            .resourceUpdate(
                resourceId: "acc1", senderId: "c2",
                update: RecordUpdate(
                    recordType: "account",
                    record: .object([("id", .string("acc1")), ("state", .string("In Progress")), ("assignedTo", .null)]
                    ), seq: 12)),
            .error(ProtocolError(.badRevision, "revision 9 is not in 0...4", inReplyTo: "c1:9")),
            .cursorUpdate(
                RemoteCursor(
                    resourceId: "a", userId: "u2", clientId: "c2", rev: 4, selection: Selection(anchor: 1, head: 3))),
            .presenceLeft(resourceId: "a", userId: "u2", clientId: "c2"),
            .poolJoined(poolId: "org1", seq: 0),
            .poolJoined(poolId: "acc1", seq: 151),
        ]
        for message in messages {
            let envelope = ServerEnvelope(senderId: "srv", messageId: "m", message: message)
            #expect(try WireCodec.decodeServer(Array(WireCodec.encode(envelope).utf8)) == envelope)
        }
    }

    /// Protocol 2's broadcast of a change carries the author's cursor as one nested member; a
    /// malformed one is refused by its path, like any other member. (Whether it lies inside the
    /// note is the session's check: `ClientSessionHostileInputTests`.)
    @Test func theAuthorsCursorRidesOnTheChange() throws {
        var op = Operation(); op.retain(2); op.insert("z")
        let change = ServerEnvelope(
            senderId: "srv", messageId: "c1:4",
            message: .docChangeReturnOps(
                resourceId: "n1", op: op, opId: "c1:4",
                cursor: AuthorCursor(userId: "u1", clientId: "c1", selection: Selection(cursor: 3))))
        #expect(
            WireCodec.encode(change)
                == #"{"senderId":"srv","messageId":"c1:4","type":"docChangeReturnOps","data":{"resourceId":"n1","n":[2,0],"s":["","z"],"opId":"c1:4","cursor":{"userId":"u1","clientId":"c1","anchor":3,"head":3}}}"#
        )
        let prefix =
            #"{"senderId":"srv","messageId":"m","type":"docChangeReturnOps","data":{"resourceId":"n1","n":[2,0],"s":["","z"],"opId":"c1:4","cursor":"#
        let bad: [(String, String)] = [
            (#"3}}"#, "data.cursor must be an object, got an integer"),
            (#"{"userId":"u1","clientId":"c1","anchor":3}}}"#, "missing data.cursor.head"),
            (#"{"userId":"u1","clientId":"c1","anchor":3,"head":3,"rev":2}}}"#, "unexpected member data.cursor.rev"),
        ]
        for (tail, message) in bad {
            #expect {
                try WireCodec.decodeServer(Array((prefix + tail).utf8))
            } throws: { error in
                guard let error = error as? ProtocolError else { return false }
                return error.code == .malformedMessage && error.message.contains(message)
            }
        }
    }

    /// The original `resourceUpdate` is byte for byte `{"resourceId","senderId"}`; protocol 2 adds
    /// `recordType`, `record` and `seq`, all three or none.
    @Test func resourceUpdateOriginalBytesAndProtocol2Extras() throws {
        let original = ServerEnvelope(
            senderId: "srv", messageId: "m1", message: .resourceUpdate(resourceId: "org1", senderId: "c1"))
        #expect(
            WireCodec.encode(original)
                == #"{"senderId":"srv","messageId":"m1","type":"resourceUpdate","data":{"resourceId":"org1","senderId":"c1"}}"#
        )
        let update = RecordUpdate(
            recordType: "task", record: .object([("id", .string("t1")), ("done", .bool(true))]), seq: 3)
        let v2 = ServerEnvelope(
            senderId: "srv", messageId: "m2", message: .resourceUpdate(resourceId: "t1", senderId: "c1", update: update)
        )
        #expect(
            WireCodec.encode(v2)
                == #"{"senderId":"srv","messageId":"m2","type":"resourceUpdate","data":{"resourceId":"t1","senderId":"c1","recordType":"task","record":{"id":"t1","done":true},"seq":3}}"#
        )
        #expect(try WireCodec.decodeServer(Array(WireCodec.encode(v2).utf8)) == v2)
        let partial =
            #"{"senderId":"srv","messageId":"m3","type":"resourceUpdate","data":{"resourceId":"t1","senderId":"c1","seq":3}}"#
        #expect(throws: ProtocolError.self) { try WireCodec.decodeServer(Array(partial.utf8)) }
    }

    /// Protocol 2's pool-join marker: its bytes, and what a malformed one gets.
    @Test func poolJoinedBytesAndBadOnes() throws {
        let marker = ServerEnvelope(senderId: "srv", messageId: "j:c1", message: .poolJoined(poolId: "org1", seq: 7))
        #expect(
            WireCodec.encode(marker)
                == #"{"senderId":"srv","messageId":"j:c1","type":"poolJoined","data":{"poolId":"org1","seq":7}}"#)
        for (bad, says) in [
            (#"{"senderId":"srv","messageId":"j","type":"poolJoined","data":{"seq":7}}"#, "missing data.poolId"),
            (
                #"{"senderId":"srv","messageId":"j","type":"poolJoined","data":{"poolId":"o","seq":-1}}"#,
                "data.seq must be 0 or more"
            ),
            (
                #"{"senderId":"srv","messageId":"j","type":"poolJoined","data":{"poolId":"o","seq":"7"}}"#,
                "data.seq must be an integer"
            ),
            (
                #"{"senderId":"srv","messageId":"j","type":"poolJoined","data":{"poolId":"o","seq":7,"x":1}}"#,
                "unexpected member data.x"
            ),
        ] {
            do {
                _ = try WireCodec.decodeServer(Array(bad.utf8))
                Issue.record("accepted \(bad)")
            } catch {
                #expect(error.code == .malformedMessage && error.message.contains(says), "\(bad): \(error)")
            }
        }
    }

    /// What each bad input gets: the error code the server answers with, and a message naming the problem.
    @Test(arguments: [
        ("not json", ProtocolErrorCode.malformedMessage, "invalid JSON at byte 0"),
        (
            #"{"messageId":"m","type":"docChange","data":{"resourceId":"a","rev":"3","n":[],"s":[]}}"#,
            .malformedMessage, "data.rev must be an integer, got a string"
        ),
        (
            #"{"messageId":"m","type":"docChange","data":{"resourceId":"a","rev":3,"n":[1,0],"s":[""]}}"#,
            .badOperation, "mismatched array lengths"
        ),
        (
            #"{"messageId":"m","type":"docChange","data":{"resourceId":"a","rev":3,"n":[0],"s":[""]}}"#, .badOperation,
            "empty insert"
        ),
        (
            #"{"messageId":"m","type":"docChange","data":{"resourceId":"a","rev":3,"n":[2],"s":["x"]}}"#, .badOperation,
            "retain 2 carries text"
        ),
        (
            #"{"messageId":"m","type":"docChange","data":{"resourceId":"a","n":[],"s":[]}}"#, .malformedMessage,
            "missing data.rev"
        ),
        (
            #"{"messageId":"m","type":"docChange","data":{"resourceId":"a","rev":1,"n":[1],"s":[""],"x":1}}"#,
            .malformedMessage, "unexpected member data.x"
        ),
        (#"{"messageId":"m","type":"shout","data":{}}"#, .unknownType, "unknown message type \"shout\""),
        (#"{"type":"docChange","data":{}}"#, .malformedMessage, "missing messageId"),
        (
            #"{"messageId":"m","type":"resourceConnection","data":{"resourceId":"\ud800"}}"#, .malformedMessage,
            "lone high surrogate"
        ),
        (
            #"{"messageId":"m","type":"cursorUpdate","data":{"resourceId":"a","rev":0,"anchor":-1,"head":0}}"#,
            .malformedMessage, "must not be negative"
        ),
    ])
    func badInputGetsAPreciseError(input: String, code: ProtocolErrorCode, message: String) {
        #expect {
            try WireCodec.decodeClient(Array(input.utf8))
        } throws: { error in
            guard let error = error as? ProtocolError else { return false }
            return error.code == code && error.message.contains(message)
        }
    }

    @Test func illFormedUTF8IsRejected() {
        let bytes: [UInt8] =
            Array(#"{"messageId":"m","type":"resourceConnection","data":{"resourceId":""#.utf8) + [0xC3, 0x28]
            + Array(#""}}"#.utf8)
        #expect(throws: ProtocolError.self) { try WireCodec.decodeClient(bytes) }
    }

    @Test func theOriginalSizeLimitIsEnforced() {
        let big =
            #"{"messageId":"m","type":"resourceConnection","data":{"resourceId":""# + String(repeating: "a", count: 600)
            + #""}}"#
        #expect {
            try WireCodec.decodeClient(Array(big.utf8), maxBytes: WireCodec.originalMaxBytes)
        } throws: { ($0 as? ProtocolError)?.code == .tooLarge }
    }
}
