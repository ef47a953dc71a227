import Testing
import WhaleOT
@testable import WhaleProtocol
import WhalesimTesting

/// `HotServerDecoder` reads the usual form of `docChangeReturnOps` without a JSON tree; whatever
/// it returns must be exactly what the general decoder returns, and whatever it declines the
/// general decoder reads (or refuses) as before. Checked on seeded random frames, each also
/// mangled byte by byte.
@Suite struct HotServerDecoderTests {
    /// The shared seeded generator, with the two draws these tests use.
    struct Seeded {
        var rng: SplitMix64
        init(state: UInt64) { rng = SplitMix64(seed: state) }
        mutating func below(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        mutating func chance(_ p: Double) -> Bool { Double(rng.next() % 1_000_000) < p * 1_000_000 }
    }

    /// Pieces of text: plain, accented, astral, and the characters JSON must escape.
    static let pieces = ["a", "hello ", "é", "👍", "\n", "\"", "\\", "\u{01}", "/", "Call notes:", "0", "-"]

    static func randomText(_ rng: inout Seeded, escapes: Bool) -> String {
        var text = ""
        for _ in 0..<(1 + rng.below(4)) {
            var piece = pieces[rng.below(pieces.count)]
            if !escapes, ["\n", "\"", "\\", "\u{01}"].contains(piece) { piece = "x" }
            text += piece
        }
        return text
    }

    static func randomEnvelope(_ rng: inout Seeded, escapes: Bool) -> ServerEnvelope {
        var op = Operation()
        for _ in 0..<(1 + rng.below(4)) {
            switch rng.below(3) {
            case 0: op.retain(1 + rng.below(40))
            case 1: op.insert(randomText(&rng, escapes: escapes))
            default: op.delete(1 + rng.below(5))
            }
        }
        let opId: String? = rng.chance(0.8) ? "c\(rng.below(1000)):\(rng.below(100_000))" : nil
        let cursor: AuthorCursor? =
            rng.chance(0.5)
            ? AuthorCursor(
                userId: "u\(rng.below(50))", clientId: ClientID("client-\(rng.below(1000))"),
                selection: Selection(anchor: rng.below(500), head: rng.below(500)))
            : nil
        return ServerEnvelope(
            senderId: rng.chance(0.5) ? "srv-1" : "", messageId: opId ?? "m\(rng.below(1000))",
            message: .docChangeReturnOps(resourceId: "note-\(rng.below(100))", op: op, opId: opId, cursor: cursor))
    }

    static func general(_ bytes: [UInt8]) -> Result<ServerEnvelope, ProtocolError> {
        do { return .success(try WireCodec.decodeServerGenerally(bytes, maxBytes: WireCodec.defaultMaxBytes)) } catch {
            return .failure(error)
        }
    }

    @Test func theUsualFormIsReadWithoutTheTreeAndAgreesWithIt() throws {
        var rng = Seeded(state: 21)
        for _ in 0..<2_000 {
            let envelope = Self.randomEnvelope(&rng, escapes: false)
            let bytes = Array(WireCodec.encode(envelope).utf8)
            #expect(HotServerDecoder.decode(bytes) == envelope, "\(String(decoding: bytes, as: UTF8.self))")
            #expect(try WireCodec.decodeServer(bytes) == envelope)
            #expect(
                try bytes.withUnsafeBytes { try WireCodec.decodeServer(buffer: $0) } == envelope,
                "in place, as the epoll loop reads it")
        }
    }

    /// Escaped strings are valid but not the fast path's: the general decoder reads them.
    @Test func escapesAreLeftToTheGeneralDecoder() throws {
        var op = Operation(); op.retain(1); op.insert("say \"hi\"\n")
        let envelope = ServerEnvelope(
            senderId: "srv", messageId: "c1:1", message: .docChangeReturnOps(resourceId: "n", op: op, opId: "c1:1"))
        let bytes = Array(WireCodec.encode(envelope).utf8)
        #expect(HotServerDecoder.decode(bytes) == nil)
        #expect(try WireCodec.decodeServer(bytes) == envelope)
    }

    /// Other member orders, whitespace and other messages are valid too, and also declined.
    @Test func otherFormsAreDeclinedAndStillRead() throws {
        let forms = [
            #"{"messageId":"m","senderId":"s","type":"docChangeReturnOps","data":{"resourceId":"n","n":[0],"s":["x"]}}"#,
            #"{"senderId":"s","messageId":"m","type":"docChangeReturnOps","data":{"resourceId":"n","n":[0],"s":["x"]} }"#,
            #"{"senderId":"s","messageId":"m","type":"docChangeReturnOps","data":{"resourceId":"n","s":["x"],"n":[0]}}"#,
            #"{"senderId":"s","messageId":"m","type":"docChangeReturnOps","data":{"resourceId":"n","n":[0],"s":["x"],"cursor":{"clientId":"c","userId":"u","anchor":0,"head":0}}}"#,
            #"{"senderId":"s","messageId":"m","type":"docChangeReturnOps","data":{"resourceId":"n","n":[0],"s":["x"],"opId":null}}"#,
            #"{"senderId":"s","messageId":"m","type":"poolJoined","data":{"poolId":"p","seq":3}}"#,
        ]
        for form in forms {
            let bytes = Array(form.utf8)
            #expect(HotServerDecoder.decode(bytes) == nil, "\(form)")
            #expect(throws: Never.self) { try WireCodec.decodeServer(bytes) }
        }
    }

    /// What each bad frame gets: the fast path declines it (it never returns a value the general
    /// decoder would not), and `decodeServer` throws the general decoder's error.
    @Test func badFramesGetTheGeneralDecodersError() {
        let cases: [(String, ProtocolErrorCode)] = [
            // An op whose n and s differ in length.
            (
                #"{"senderId":"s","messageId":"m","type":"docChangeReturnOps","data":{"resourceId":"n","n":[0,1],"s":["x"]}}"#,
                .badOperation
            ),
            // A leading zero, a fraction, a number too long for an Int.
            (
                #"{"senderId":"s","messageId":"m","type":"docChangeReturnOps","data":{"resourceId":"n","n":[01],"s":[""]}}"#,
                .malformedMessage
            ),
            (
                #"{"senderId":"s","messageId":"m","type":"docChangeReturnOps","data":{"resourceId":"n","n":[1.5],"s":[""]}}"#,
                .malformedMessage
            ),
            (
                #"{"senderId":"s","messageId":"m","type":"docChangeReturnOps","data":{"resourceId":"n","n":[123456789012345678901],"s":[""]}}"#,
                .malformedMessage
            ),
            // A control character raw in a string; a frame cut short; bytes after the end.
            (
                "{\"senderId\":\"s\",\"messageId\":\"m\",\"type\":\"docChangeReturnOps\",\"data\":{\"resourceId\":\"n\",\"n\":[0],\"s\":[\"\u{01}\"]}}",
                .malformedMessage
            ),
            (
                #"{"senderId":"s","messageId":"m","type":"docChangeReturnOps","data":{"resourceId":"n","n":[0],"s":["x"]}"#,
                .malformedMessage
            ),
            (
                #"{"senderId":"s","messageId":"m","type":"docChangeReturnOps","data":{"resourceId":"n","n":[0],"s":["x"]}}x"#,
                .malformedMessage
            ),
            // A cursor with a member too many.
            (
                #"{"senderId":"s","messageId":"m","type":"docChangeReturnOps","data":{"resourceId":"n","n":[0],"s":["x"],"cursor":{"userId":"u","clientId":"c","anchor":0,"head":0,"rev":1}}}"#,
                .malformedMessage
            ),
        ]
        for (form, code) in cases {
            let bytes = Array(form.utf8)
            #expect(HotServerDecoder.decode(bytes) == nil, "\(form)")
            #expect { try WireCodec.decodeServer(bytes) } throws: { ($0 as? ProtocolError)?.code == code }
            #expect { try bytes.withUnsafeBytes { try WireCodec.decodeServer(buffer: $0) } } throws: {
                ($0 as? ProtocolError)?.code == code
            }
        }
        // Ill-formed UTF-8 in a string.
        var bytes = Array(
            #"{"senderId":"s","messageId":"m","type":"docChangeReturnOps","data":{"resourceId":"n","n":[0],"s":["x"]}}"#
                .utf8)
        bytes[bytes.count - 5] = 0xFF
        #expect(HotServerDecoder.decode(bytes) == nil)
        #expect { try WireCodec.decodeServer(bytes) } throws: { ($0 as? ProtocolError)?.code == .malformedMessage }
    }

    /// Random frames mangled by one byte changed, dropped or added, or cut short: whenever the
    /// fast path returns a value, the general decoder returns the same one.
    @Test func mangledFramesNeverDisagree() {
        var rng = Seeded(state: 2_100)
        let noise: [UInt8] = Array(#" ",:{}[]0123456789-.eE\a"#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xFF]
        var fastHits = 0
        for round in 0..<20_000 {
            var bytes = Array(WireCodec.encode(Self.randomEnvelope(&rng, escapes: rng.chance(0.3))).utf8)
            let at = rng.below(bytes.count)
            switch rng.below(4) {
            case 0: bytes[at] = noise[rng.below(noise.count)]
            case 1: bytes.remove(at: at)
            case 2: bytes.insert(noise[rng.below(noise.count)], at: at)
            default: bytes.removeLast(1 + rng.below(min(8, bytes.count)))
            }
            guard let fast = HotServerDecoder.decode(bytes) else { continue }
            fastHits += 1
            guard case .success(let envelope) = Self.general(bytes), envelope == fast else {
                Issue.record(
                    "round \(round): the fast path read \(String(decoding: bytes, as: UTF8.self)) as \(fast), the general decoder as \(Self.general(bytes))"
                )
                return
            }
        }
        // Some mangled frames are still the usual form (a digit for a digit, a letter for a letter).
        #expect(fastHits > 100)
    }
}
