import Testing
import WhaleOT
@testable import WhaleProtocol
import WhalesimTesting

/// `WireCodec.encodeBytes` writes a client message's bytes without a JSON tree; they must be
/// exactly the bytes of `WireCodec.encode` (the form servers and golden files know), for every
/// message kind, every optional member and every character JSON escapes.
@Suite struct ClientBytesEncoderTests {
    typealias Seeded = HotServerDecoderTests.Seeded

    static func randomEnvelope(_ rng: inout Seeded) -> ClientEnvelope {
        let text = { (rng: inout Seeded) in HotServerDecoderTests.randomText(&rng, escapes: true) }
        let ids = ["m1", "c12:345", "a\"quoted\"id", "tab\there", "ünïcode-👍", "ctl\u{1f}\u{00}", ""]
        let messageId = ids[rng.below(ids.count)], resourceId = ids[rng.below(ids.count)]
        // Numbers at the edges as well: zero, negative, Int.max and Int.min.
        let numbers = [0, 1, 9, 10, 42, 1_000_000, -1, -17, Int.max, Int.min]
        let number = { (rng: inout Seeded) in rng.chance(0.5) ? numbers[rng.below(numbers.count)] : rng.below(100_000) }
        switch rng.below(3) {
        case 0:
            return ClientEnvelope(
                messageId: messageId,
                message: .resourceConnection(resourceId: resourceId, revision: rng.chance(0.5) ? number(&rng) : nil))
        case 1:
            var op = Operation()
            for _ in 0..<rng.below(5) {
                switch rng.below(3) {
                case 0: op.retain(1 + rng.below(40))
                case 1: op.insert(text(&rng))
                default: op.delete(1 + rng.below(5))
                }
            }
            let opId: String? = rng.chance(0.6) ? ids[rng.below(ids.count)] : nil
            return ClientEnvelope(
                messageId: messageId,
                message: .docChange(DocChange(resourceId: resourceId, rev: number(&rng), op: op, opId: opId)))
        default:
            return ClientEnvelope(
                messageId: messageId,
                message: .cursorUpdate(
                    resourceId: resourceId, rev: number(&rng),
                    selection: Selection(anchor: number(&rng), head: number(&rng))))
        }
    }

    @Test func theBytesAreExactlyThoseOfTheTreeEncoder() {
        var rng = Seeded(state: 2121)
        var kinds = Set<String>()
        for _ in 0..<3_000 {
            let envelope = Self.randomEnvelope(&rng)
            let tree = Array(WireCodec.encode(envelope).utf8), direct = WireCodec.encodeBytes(envelope)
            #expect(
                direct == tree, "\(String(decoding: tree, as: UTF8.self)) vs \(String(decoding: direct, as: UTF8.self))"
            )
            kinds.insert(envelope.message.typeName)
        }
        #expect(kinds.count == 3)
    }

    @Test func everyControlCharacterIsEscapedAsTheTreeEncoderDoes() {
        for scalar in (0..<0x20).compactMap(Unicode.Scalar.init) {
            let id = "a\(Character(scalar))b"
            let envelope = ClientEnvelope(messageId: id, message: .resourceConnection(resourceId: id, revision: nil))
            #expect(
                WireCodec.encodeBytes(envelope) == Array(WireCodec.encode(envelope).utf8),
                "U+\(String(scalar.value, radix: 16))")
        }
    }
}
