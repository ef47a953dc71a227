import Foundation
import Testing
import WhalesimTesting
@testable import WhaleRecord

/// The compact history file gives back exactly the lines it was given (every event type, any
/// string, any int, lines it cannot model), a line at a time, and says what is wrong with a file
/// that is not one: each bad input gets its own error.
@Suite struct HistoryFileTests {
    /// One line of every event type `History.jsonLines()` writes, plus strings and numbers at their edges.
    static let lines: [String] = [
        #"{"t":0,"type":"note","text":"documents acc-1000 (base revision 12)"}"#,
        #"{"t":0,"type":"connect","client":"c001"}"#,
        #"{"t":3,"type":"edit","client":"c001","position":0,"deleted":0,"inserted":"Call notes:\n"}"#,
        #"{"t":3,"type":"invoke","client":"c001","opId":"c001.mwx8ir1z:1","op":"[\"Call notes:\\n\"]","baseRevision":0}"#,
        #"{"t":3,"type":"send","client":"c001","opId":"c001.mwx8ir1z:1","op":"[\"Call notes:\\n\"]","revision":0}"#,
        #"{"t":5,"type":"ack","client":"c001","opId":"c001.mwx8ir1z:1","revision":1}"#,
        #"{"t":5,"type":"failed","client":"c001","opId":"c001.mwx8ir1z:2","reason":"revision-too-old"}"#,
        #"{"t":5,"type":"serverApply","document":"acc-1000","client":"c001","opId":"c001.mwx8ir1z:1","op":"[\"Call notes:\\n\"]","revision":1}"#,
        #"{"t":6,"type":"serverRevision","document":"acc-1000","from":1,"to":3,"cause":"restart"}"#,
        #"{"t":6,"type":"observation","document":"acc-1000","from":1,"to":3,"kind":"gap","detail":""}"#,
        #"{"t":7,"type":"clientRevision","client":"c001","revision":1}"#,
        #"{"t":7,"type":"error","client":"c002","code":"bad-op","message":"the op's length 4 is not the document's 3"}"#,
        #"{"t":8,"type":"cursorDelivered","client":"c001","revision":1,"anchor":0,"head":12}"#,
        #"{"t":8,"type":"selectionSet","client":"c001","revision":1,"anchor":3,"head":1}"#,
        #"{"t":8,"type":"ownCursor","client":"c001","revision":1,"anchor":3,"head":1,"textLength":12}"#,
        #"{"t":9,"type":"remoteCursor","observer":"c002","subject":"c001","revision":1,"anchor":null,"head":null,"textLength":12}"#,
        #"{"t":9,"type":"remoteCursor","observer":"c002","subject":"c001","revision":1,"anchor":2,"head":2,"textLength":12}"#,
        #"{"t":10,"type":"disconnect","client":"c001","cause":"nemesis"}"#,
        #"{"t":11,"type":"serverCrash"}"#,
        #"{"t":11,"type":"serverRestart"}"#,
        #"{"t":12,"type":"heal"}"#,
        #"{"t":13,"type":"quiescence","reached":true,"ticksAfterHeal":140}"#,
        #"{"t":13,"type":"quiescence","reached":false,"ticksAfterHeal":0}"#,
        #"{"t":13,"type":"traffic","messages":100882,"actions":8320,"clients":300}"#,
        #"{"t":14,"type":"clientFinal","client":"c001","text":"Call notes:\n","revision":1,"pendingOps":0,"connected":true}"#,
        #"{"t":14,"type":"serverFinal","document":"acc-1000","text":"Call notes:\n","revision":1,"historyCount":1}"#,
        #"{"t":15,"type":"modelInvoke","client":"c001","requestId":"r:1","mutation":"assign task-1 to u-2"}"#,
        #"{"t":15,"type":"modelApply","client":"c001","requestId":"r:1","order":1,"records":"task-1\nu-2"}"#,
        #"{"t":15,"type":"modelAck","client":"c001","requestId":"r:1","order":1}"#,
        #"{"t":15,"type":"modelFailed","client":"c001","requestId":"r:2","reason":"stale"}"#,
        #"{"t":16,"type":"modelClientFinal","client":"c001","page":"tasks","records":"","pending":0}"#,
        #"{"t":16,"type":"modelServerFinal","client":"c001","page":"tasks","records":"a\nb"}"#,
        #"{"t":16,"type":"modelServerState","records":"a"}"#,
        // Strings: astral scalars, escapes of every kind, empty, long; names that look like counters.
        #"{"t":17,"type":"edit","client":"c😀","position":1,"deleted":0,"inserted":"𝄞 é 😀 \u0000 \" \\ \/ \b\f\n\r\t \ud83d\ude00"}"#,
        #"{"t":17,"type":"note","text":""}"#,
        #"{"t":17,"type":"ack","client":"","opId":":5","revision":0}"#,
        #"{"t":17,"type":"ack","client":"c001","opId":"a:05","revision":0}"#,
        #"{"t":17,"type":"ack","client":"c001","opId":"a:0","revision":0}"#,
        #"{"t":17,"type":"ack","client":"c001","opId":"a\\:7","revision":0}"#,
        #"{"t":17,"type":"ack","client":"c001","opId":"x:123456789012345678901","revision":0}"#,
        "{\"t\":18,\"type\":\"note\",\"text\":\"" + String(repeating: "long ", count: 20_000) + "\"}",
        // Ops: texts with escaped quotes, backslashes, newlines and astral scalars; ops the op form
        // cannot hold exactly (kept as strings).
        #"{"t":17,"type":"send","client":"c1","opId":"c1:1","op":"[3,\"a\\\"b\\\\c\\n\",-2,\"\",\"😀\\ud83d\\ude00\"]","revision":0}"#,
        #"{"t":17,"type":"send","client":"c1","opId":"c1:2","op":"[]","revision":0}"#,
        #"{"t":17,"type":"send","client":"c1","opId":"c1:3","op":"[-0]","revision":0}"#,
        #"{"t":17,"type":"send","client":"c1","opId":"c1:4","op":"[007,1]","revision":0}"#,
        #"{"t":17,"type":"send","client":"c1","opId":"c1:5","op":"[1,]","revision":0}"#,
        #"{"t":17,"type":"send","client":"c1","opId":"c1:6","op":"[\"unterminated]","revision":0}"#,
        #"{"t":17,"type":"send","client":"c1","opId":"c1:7","op":"[\"a\\\"]","revision":0}"#,
        #"{"t":17,"type":"send","client":"c1","opId":"c1:8","op":"[123456789012345678901,\"x\"]","revision":0}"#,
        #"{"t":17,"type":"send","client":"c1","opId":"c1:9","op":"[1, 2]","revision":0}"#,
        // Ints at the edges, times going back, negative times.
        #"{"t":9223372036854775807,"type":"traffic","messages":-9223372036854775807,"actions":0,"clients":-1}"#,
        #"{"t":-5,"type":"clientRevision","client":"c001","revision":9223372036854775807}"#,
        #"{"t":2,"type":"clientRevision","client":"c001","revision":-9223372036854775807}"#,
        // Lines the shapes cannot hold are kept whole: Int64.min, leading zeros, -0, floats,
        // whitespace, nested values, keys with escapes, duplicate t, an empty object, not JSON at all.
        #"{"t":0,"type":"traffic","messages":-9223372036854775808,"actions":0,"clients":0}"#,
        #"{"t":0,"type":"traffic","messages":9223372036854775808,"actions":0,"clients":0}"#,
        #"{"t":007,"type":"heal"}"#,
        #"{"t":-0,"type":"heal"}"#,
        #"{"t":1.5,"type":"heal"}"#,
        #"{"t": 1, "type": "heal"}"#,
        #"{"t":1,"type":"note","x":[1,2],"y":{"a":1}}"#,
        #"{"t":1,"type":"note","k\"ey":"v","t":4}"#,
        #"{}"#,
        "",
        "not json at all",
        #"{"t":1,"type":"heal"} "#,
    ]

    func roundTrip(_ lines: [String]) throws -> (back: [String], bytes: Int) {
        let dir = try ExternalProcess.temporaryDirectory("history-file")
        let path = dir.appendingPathComponent("history.whr").path
        try HistoryFiles.write(lines, to: path)
        let back = try HistoryFiles.lines(path).map { String(decoding: $0, as: UTF8.self) }
        return (back, try Data(contentsOf: URL(fileURLWithPath: path)).count)
    }

    @Test func everyLineComesBackByteForByte() throws {
        let (back, _) = try roundTrip(Self.lines)
        #expect(back.count == Self.lines.count)
        for (a, b) in zip(Self.lines, back) { #expect(a == b) }
        #expect(try roundTrip([]).back.isEmpty)
    }

    @Test func seededRandomLinesComeBack() throws {
        var rng = SplitMix64(seed: 21)
        let alphabet = Array("ab\\\"😀é𝄞\n :0123456789")
        var lines: [String] = []
        for i in 0..<20_000 {
            let client = "c\(Int.random(in: 0..<40, using: &rng))"
            let text = String(
                (0..<Int.random(in: 0..<6, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n")
            let r = Int.random(in: -3...Int(Int32.max), using: &rng)
            switch i % 4 {
            case 0: lines.append(#"{"t":\#(i / 3),"type":"clientRevision","client":"\#(client)","revision":\#(r)}"#)
            case 1:
                lines.append(
                    #"{"t":\#(i / 3),"type":"invoke","client":"\#(client)","opId":"\#(client).x:\#(i)","op":"[\#(r),\"\#(escaped)\"]","baseRevision":\#(r)}"#
                )
            case 2:
                lines.append(
                    #"{"t":\#(i / 3),"type":"edit","client":"\#(escaped)","position":\#(r),"deleted":0,"inserted":"\#(escaped)"}"#
                )
            default:
                lines.append(
                    #"{"t":\#(i / 3),"type":"error","client":"\#(client)","code":"\#(escaped)","message":"\#(escaped)"}"#
                )
            }
        }
        let (back, bytes) = try roundTrip(lines)
        #expect(back == lines)
        #expect(bytes < lines.reduce(0) { $0 + $1.utf8.count } / 4)
    }

    @Test func opsAreStoredAsComponents() {
        let op = Array(#"[12,\"c\",-3]"#.utf8)
        #expect(OperationText.parse(op, 0..<op.count) == [.number(12), .text(6..<7), .number(-3)])
        for text in ["[007]", "[-0]", "[1,]", "[1, 2]", "12", "[\\\"a]"] {
            let b = Array(text.utf8)
            #expect(OperationText.parse(b, 0..<b.count) == nil, "\(text)")
        }
    }

    /// More interned names than a table holds: the rest are written as literals.
    @Test func stringTablesAreBounded() throws {
        let lines = (0..<(HistoryEncoder.maxTableEntries + 500)).map { #"{"t":0,"type":"connect","client":"c\#($0)"}"# }
        #expect(try roundTrip(lines).back == lines)
    }

    @Test func readsJSONLinesFilesToo() throws {
        let dir = try ExternalProcess.temporaryDirectory("history-jsonl")
        let path = dir.appendingPathComponent("history.jsonl").path
        try Data((Self.lines.prefix(5).joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        #expect(try HistoryFiles.lines(path).map { String(decoding: $0, as: UTF8.self) } == Array(Self.lines.prefix(5)))
        #expect(try HistoryFiles.isCompact(path) == false)
        #expect(try HistoryFiles.history(in: dir.path) == path)
        try HistoryFiles.write(["{\"t\":0,\"type\":\"heal\"}"], to: dir.appendingPathComponent("history.whr").path)
        #expect(try HistoryFiles.history(in: dir.path).hasSuffix("/history.whr"))
    }

    // MARK: bad input: each gets its own error

    func written() throws -> (path: String, bytes: [UInt8]) {
        let dir = try ExternalProcess.temporaryDirectory("history-bad")
        let path = dir.appendingPathComponent("history.whr").path
        try HistoryFiles.write(Self.lines + Self.lines, to: path)
        return (path, [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    func readError(_ bytes: [UInt8], at path: String) throws -> RecordFileError? {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do { _ = try HistoryFiles.lines(path) } catch let e as RecordFileError { return e }
        return nil
    }

    @Test func aTruncatedFileIsTruncated() throws {
        let (path, bytes) = try written()
        for cut in [8, 9, 20, bytes.count / 2, bytes.count - 5, bytes.count - 1] {
            let e = try readError(Array(bytes.prefix(cut)), at: path)
            guard case .truncated(let m)? = e else { Issue.record("cut at \(cut): \(String(describing: e))"); continue }
            #expect(m.hasPrefix(path) && m.contains("truncated"))
        }
        // Cut inside the header: the version is missing.
        guard case .truncated? = try readError(Array(bytes.prefix(7)), at: path) else {
            Issue.record("header cut"); return
        }
    }

    @Test func wrongMagicIsNotARecord() throws {
        let (path, bytes) = try written()
        var other = bytes
        other[0] = UInt8(ascii: "X")
        guard case .notARecord(let m)? = try readError(other, at: path) else { Issue.record("wrong magic"); return }
        #expect(m.contains("not a whalesim history file"))
        // An empty .whr file is not one either; under another name without the magic it is JSON lines.
        guard case .notARecord? = try readError([], at: path) else { Issue.record("empty"); return }
        let plain = path.replacingOccurrences(of: ".whr", with: ".jsonl")
        #expect(try readError([], at: plain) == nil)
        #expect(try HistoryFiles.isCompact(plain) == false)
        try Data(bytes).write(to: URL(fileURLWithPath: plain))
        #expect(try HistoryFiles.isCompact(plain))
    }

    @Test func anUnknownVersionSaysSo() throws {
        let (path, bytes) = try written()
        var other = bytes
        other[6] = 2
        guard case .unsupportedVersion(let m)? = try readError(other, at: path) else { Issue.record("version"); return }
        #expect(m.contains("version 2 is not supported"))
    }

    @Test func damagedBytesAreCorrupt() throws {
        let (path, bytes) = try written()
        for offset in [bytes.count / 3, bytes.count / 2, bytes.count - 3] {
            var other = bytes
            other[offset] ^= 0x5A
            let e = try readError(other, at: path)
            switch e {
            case .corrupt?, .truncated?: break
            default: Issue.record("flipped byte at \(offset): \(String(describing: e))")
            }
        }
        var longer = bytes
        longer += [1, 2, 3]
        guard case .corrupt(let m)? = try readError(longer, at: path) else { Issue.record("trailing bytes"); return }
        #expect(m.contains("after the end"))
    }

    @Test func aMissingFileIsMissing() throws {
        let dir = try ExternalProcess.temporaryDirectory("history-missing")
        #expect(throws: RecordFileError.missing("\(dir.path)/history.whr: missing (nor is there a history.jsonl)")) {
            try HistoryFiles.history(in: dir.path)
        }
        do {
            _ = try HistoryFileReader(path: dir.appendingPathComponent("nope").path)
            Issue.record("read a file that is not there")
        } catch {
            guard case .missing = error else { Issue.record("\(error)"); return }
        }
    }
}

@Suite struct HistogramPackTests {
    @Test func packedHistogramsComeBackExactly() throws {
        var rng = SplitMix64(seed: 5)
        var metrics: [String: [[[UInt64]]]] = ["empty": [], "no-samples": [[], []]]
        for name in ["op_ack", "op_remote_apply", "connect"] {
            metrics[name] = (0..<60).map { _ in
                var v: UInt64 = 0
                return (0..<Int.random(in: 0..<40, using: &rng)).map { _ in
                    v += UInt64.random(in: 1...5000, using: &rng)
                    return [v, UInt64.random(in: 1...300, using: &rng)]
                }
            }
        }
        metrics["edges"] = [[[UInt64.max, UInt64.max], [0, 0], [7, 1]]]
        let packed = try HistogramPack.pack(metrics)
        #expect(try HistogramPack.unpack(packed) == metrics)
        #expect(try HistogramPack.unpack(try HistogramPack.pack([:])) == [:])
        #expect(throws: RecordFileError.self) { try HistogramPack.unpack("not base64!") }
        #expect(throws: RecordFileError.self) { try HistogramPack.unpack(String(packed.dropLast(8))) }
        #expect(throws: RecordFileError.self) { try HistogramPack.pack(["bad": [[[1, 2, 3]]]]) }
        // Validating reads what unpacking reads, and refuses what it refuses, building nothing.
        try HistogramPack.validate(packed)
        #expect(throws: RecordFileError.self) { try HistogramPack.validate("not base64!") }
        #expect(throws: RecordFileError.self) { try HistogramPack.validate(String(packed.dropLast(8))) }
    }

    @Test func base64MatchesFoundation() {
        var rng = SplitMix64(seed: 9)
        for n in 0..<40 {
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            #expect(Base64.encode(bytes) == Data(bytes).base64EncodedString())
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
    }
}
