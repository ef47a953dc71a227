import WhaleOT
import WhaleProtocol

/// One case of `WireFuzz`: its generator and the checks of each kind of case.
struct WireFuzzCase {
    let index: Int
    var rng: SimRandom

    mutating func below(_ n: Int) -> Int { rng.int(in: 0...(n - 1)) }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    static let alphabet: [Unicode.Scalar] = ["a", "b", " ", "é", "日", "🐋", "\u{301}", "\n", "\"", "\\"]

    mutating func text(_ maxScalars: Int) -> String {
        var s = String.UnicodeScalarView()
        for _ in 0..<below(maxScalars + 1) { s.append(pick(Self.alphabet)) }
        return String(s)
    }

    /// A canonical op over `baseLength` scalars (sometimes a wrong length on purpose).
    mutating func operation(baseLength: Int) -> Operation {
        let length = rng.chance(0.15) ? max(0, baseLength + pick([-3, -1, 1, 2, 1000])) : baseLength
        var op = Operation()
        var remaining = length
        while remaining > 0 {
            let step = 1 + below(min(remaining, 6))
            switch below(4) {
            case 0, 1: op.retain(step); remaining -= step
            case 2: op.delete(step); remaining -= step
            default: op.insert(text(3) + "x")
            }
        }
        if rng.chance(0.3) { op.insert(text(4) + "y") }
        return op
    }

    mutating func clientEnvelope(resourceId: String, revision: Int, length: Int) -> ClientEnvelope {
        let messageId = "m\(below(1000))"
        let rev = rng.chance(0.7) ? revision : pick([-1, 0, revision + 1, Int.max, max(0, revision - 1)])
        switch below(5) {
        case 0:
            return ClientEnvelope(
                messageId: messageId,
                message: .resourceConnection(
                    resourceId: resourceId, revision: rng.chance(0.5) ? nil : pick([0, revision, revision + 5, -1])))
        case 1:
            return ClientEnvelope(
                messageId: messageId,
                message: .cursorUpdate(
                    resourceId: resourceId, rev: rev,
                    selection: Selection(anchor: below(length + 3), head: below(length + 3))))
        default:
            let opId = rng.chance(0.8) ? "c:\(below(20))" : nil
            return ClientEnvelope(
                messageId: messageId,
                message: .docChange(
                    DocChange(
                        resourceId: rng.chance(0.9) ? resourceId : "other", rev: rev, op: operation(baseLength: length),
                        opId: opId)))
        }
    }

    mutating func serverEnvelope(length: Int, revision: Int) -> ServerEnvelope {
        let message: ServerMessage
        switch below(6) {
        case 0:
            message = .resourceConnectionConf(
                ResourceConnectionConf(
                    resourceId: "doc", revision: revision &+ below(3), initialState: rng.chance(0.7) ? text(12) : nil,
                    missedOps: rng.chance(0.5)
                        ? [MissedOp(op: operation(baseLength: length), opId: rng.chance(0.5) ? "c0:1" : nil)] : nil))
        case 1, 2:
            message = .docChangeReturnOps(
                resourceId: "doc", op: operation(baseLength: length), opId: rng.chance(0.4) ? "c0:\(below(4) + 1)" : nil
            )
        case 3:
            message = .error(
                ProtocolError(pick(ProtocolErrorCode.allCases), "refused", inReplyTo: rng.chance(0.5) ? "c0:1" : nil))
        case 4:
            message = .cursorUpdate(
                RemoteCursor(
                    resourceId: "doc", userId: "u9", clientId: "c9", rev: revision &+ below(3) &- 1,
                    selection: Selection(anchor: below(length + 3), head: below(length + 3))))
        default: message = .presenceLeft(resourceId: "doc", userId: "u9", clientId: "c9")
        }
        return ServerEnvelope(senderId: "srv", messageId: "s\(below(100))", message: message)
    }

    static let junk: [[UInt8]] = [
        Array("{".utf8), Array("}".utf8), Array("[".utf8), Array("]".utf8), Array("\"".utf8), Array(",".utf8),
        Array(":".utf8),
        Array("\\ud800".utf8), Array("\\u00".utf8), [0xFF], [0xC3, 0x28], [0xF4, 0x90, 0x80, 0x80], [0],
        Array("-0".utf8),
        Array("1e400".utf8), Array("9223372036854775808".utf8), Array("-9223372036854775809".utf8), Array("null".utf8),
        Array("true".utf8), Array("\"type\":\"error\"".utf8), Array(String(repeating: "[", count: 600).utf8),
    ]

    mutating func mutate(_ frame: [UInt8]) -> [UInt8] {
        var b = frame
        for _ in 0..<(1 + below(3)) {
            let at = b.isEmpty ? 0 : below(b.count + 1)
            switch below(8) {
            case 6, 7:
                // Keep the JSON valid but change a number: negative, zero, past the document, huge.
                let digits = b.indices.filter {
                    (48...57).contains(b[$0]) && ($0 == 0 || !(48...57).contains(b[$0 - 1]))
                }
                guard !digits.isEmpty else { continue }
                let start = pick(digits)
                var end = start
                while end < b.count, (48...57).contains(b[end]) { end += 1 }
                b.replaceSubrange(
                    start..<end,
                    with: Array(pick(["-1", "0", "1", "7", "999", "-2147483648", "9223372036854775807", "1.5"]).utf8))
            case 0: if !b.isEmpty { b.removeSubrange(at..<min(b.count, at + 1 + below(6))) }
            case 1: b.insert(contentsOf: pick(Self.junk), at: at)
            case 2: if at < b.count { b[at] ^= UInt8(truncatingIfNeeded: 1 << below(8)) }
            case 3: b = Array(b.prefix(at))
            case 4: b.insert(contentsOf: b[at...].prefix(12), at: at)
            default: if at < b.count { b[at] = pick(Array("0123456789-\"{}[],:".utf8)) }
            }
        }
        return b
    }

    // MARK: Frames

    mutating func clientFrame(_ report: inout WireFuzz.Report) {
        let valid = clientEnvelope(resourceId: "doc", revision: below(5), length: below(12))
        let frame = rng.chance(0.1) ? Array(WireCodec.encode(valid).utf8) : mutate(Array(WireCodec.encode(valid).utf8))
        do {
            let decoded = try WireCodec.decodeClient(frame)
            report.framesDecoded += 1
            let again = try? WireCodec.decodeClient(Array(WireCodec.encode(decoded).utf8))
            if again != decoded {
                report.findings.append(
                    .init(
                        index: index,
                        problem: "client frame does not round-trip: \(String(decoding: frame, as: UTF8.self))"))
            }
        } catch {
            report.framesRefused += 1
        }
    }

    mutating func serverFrame(_ report: inout WireFuzz.Report) {
        let valid = serverEnvelope(length: below(12), revision: below(5))
        let frame = rng.chance(0.1) ? Array(WireCodec.encode(valid).utf8) : mutate(Array(WireCodec.encode(valid).utf8))
        do {
            let decoded = try WireCodec.decodeServer(frame)
            report.framesDecoded += 1
            let again = try? WireCodec.decodeServer(Array(WireCodec.encode(decoded).utf8))
            if again != decoded {
                report.findings.append(
                    .init(
                        index: index,
                        problem: "server frame does not round-trip: \(String(decoding: frame, as: UTF8.self))"))
            }
        } catch {
            report.framesRefused += 1
        }
    }
}
