import Testing
@testable import WhaleReports
import WhalesimTesting

/// `FlatJSON.type`, which checks the lines a report does not keep without building them, accepts
/// exactly the lines `FlatJSON.object` reads, and names the same type.
@Suite struct FlatJSONTypeTests {
    static let lines = [
        #"{"t":1,"type":"invoke","client":"c01","opId":"c01:1","op":"[3,\"ab\"]","baseRevision":0}"#,
        #"{"t":2,"type":"clientFinal","client":"c\u00e9","text":"a\nb\t\"q\" \ud83d\ude00 \\","connected":true,"pendingOps":0}"#,
        #"{ "type" : "note" , "t" : -3 , "text" : null, "nested": {"a": [1, "]", {"b": "}"}]}, "x": 1.5e3 }"#,
        #"{"t":4,"type":"a","t":5}"#,
        #"{"t":"4","type":"a"}"#,
        #"{"t":4,"type":7}"#,
        #"{"type":"a"}"#,
        #"{"t":4}"#,
        #"{"t":4,"type":"a","s":"\ud800\u0041"}"#,
        #"{"t":4,"type":"a","s":"\uZZZZ"}"#,
        #"{"t":4,"type":"a","b":tru}"#,
        #"{"t":4,"type":"a",}"#,
        #"{"t":4,"type":"a"} x"#,
        #"{"t":4,"type":"a","x":1e30}"#,
        #"{"t":4,"type":"a","x":-1e400}"#,
        #"{"t":2.9,"type":"a"}"#,
        #"[1,2]"#,
        "",
    ]

    func agree(_ line: [UInt8]) -> Bool {
        let full = FlatJSON.object(line, 0..<line.count)
        let type = FlatJSON.type(line, 0..<line.count)
        return full?.1 == type
    }

    @Test func theSameLinesAndTypes() {
        for line in Self.lines { #expect(agree(Array(line.utf8)), "\(line)") }
        #expect(FlatJSON.type(Array(Self.lines[0].utf8), 0..<Self.lines[0].utf8.count) == "invoke")
        #expect(FlatJSON.type(Array(Self.lines[3].utf8), 0..<Self.lines[3].utf8.count) == "a")
        #expect(FlatJSON.type(Array(Self.lines[4].utf8), 0..<Self.lines[4].utf8.count) == nil)
        // A number past Int's range is no history's: refused, not a crash.
        for line in [#"{"t":4,"type":"a","x":1e30}"#, #"{"t":1e30,"type":"a"}"#] {
            #expect(FlatJSON.object(Array(line.utf8), 0..<line.utf8.count) == nil)
        }
        #expect(FlatJSON.object(Array(#"{"t":2.9,"type":"a"}"#.utf8), 0..<20)?.0 == 2)
    }

    /// 20,000 lines mangled by a byte changed, dropped or added, or cut short: both accept the same.
    @Test func mangledLinesAgree() {
        var rng = SplitMix64(seed: 21)
        let alphabet = Array(#"{}[]",:\ tu0123456789abcdefnrl-.eE"#.utf8)
        for n in 0..<20_000 {
            var line = Array(Self.lines[n % 4].utf8)
            for _ in 0...(rng.next() % 3) {
                let at = Int(rng.next() % UInt64(line.count))
                switch rng.next() % 4 {
                case 0: line[at] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
                case 1: line.remove(at: at)
                case 2: line.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: at)
                default: line = Array(line.prefix(at))
                }
                if line.isEmpty { break }
            }
            #expect(agree(line), "\(String(decoding: line, as: UTF8.self))")
        }
    }
}
