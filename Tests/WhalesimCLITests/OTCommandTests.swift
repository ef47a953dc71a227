import Foundation
import Testing

/// Runs the built `whalesim` binary (`.build/debug/whalesim`, found from this file's path).
struct WhalesimRun {
    var status: Int32
    var stdout: String
    var stderr: String

    static let binary: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/"
            && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path)
        {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent(".build/debug/whalesim")
    }()

    static func run(_ arguments: [String], stdin: Data) throws -> WhalesimRun {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let input = Pipe(), output = Pipe(), error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        input.fileHandleForWriting.write(stdin)
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return WhalesimRun(
            status: process.terminationStatus,
            stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }

    static func ot(_ subcommand: String, _ json: String) throws -> WhalesimRun {
        try run(["ot", subcommand], stdin: Data(json.utf8))
    }
}

@Suite("whalesim ot (the built binary)")
struct OTCommandTests {
    @Test func binaryIsBuilt() {
        #expect(FileManager.default.isExecutableFile(atPath: WhalesimRun.binary.path), "build first: swift build")
    }

    @Test func applyAcceptsBothForms() throws {
        let otjs = try WhalesimRun.ot("apply", #"{"doc":"hello orld","op":[6,"w",4]}"#)
        #expect(otjs.status == 0)
        #expect(otjs.stdout == "{\"doc\":\"hello world\"}\n")
        #expect(otjs.stderr.isEmpty)
        let wire = try WhalesimRun.ot("apply", #"{"op":{"n":[6,0,4],"s":["","w",""]},"doc":"hello orld"}"#)
        #expect(wire.stdout == "{\"doc\":\"hello world\"}\n")
    }

    @Test func applyCountsScalarsAndEscapesOutput() throws {
        // "👩‍💻" is 3 scalars; delete the ZWJ. Output keeps non-ASCII as UTF-8, escapes quotes and newlines.
        let run = try WhalesimRun.ot("apply", #"{"doc":"👩‍💻é","op":[1,-1,2,"\"\n"]}"#)
        #expect(run.status == 0)
        #expect(run.stdout == "{\"doc\":\"👩💻é\\\"\\n\"}\n")
    }

    @Test func composeOutputsOTJSForm() throws {
        let run = try WhalesimRun.ot("compose", #"{"doc":"abc","a":[3,"d"],"b":{"n":[-1,3],"s":["",""]}}"#)
        #expect(run.status == 0)
        #expect(run.stdout == "{\"ab\":[-1,2,\"d\"]}\n")
    }

    @Test func transformGivesATiePriority() throws {
        let run = try WhalesimRun.ot("transform", #"{"doc":"ab","a":[1,"X",1],"b":[1,"Y",1]}"#)
        #expect(run.status == 0)
        #expect(run.stdout == "{\"aPrime\":[1,\"X\",2],\"bPrime\":[2,\"Y\",1]}\n")
    }

    @Test func cursorKeepsTheShapeAndFollowsTheRule() throws {
        let remote = try WhalesimRun.ot("cursor", #"{"doc":"abc","op":[1,"XY",2],"cursor":1,"rule":"remote"}"#)
        #expect(remote.stdout == "{\"cursor\":1}\n")
        let own = try WhalesimRun.ot("cursor", #"{"doc":"abc","op":[1,"XY",2],"cursor":1,"rule":"own"}"#)
        #expect(own.stdout == "{\"cursor\":3}\n")
        let otjs = try WhalesimRun.ot("cursor", #"{"doc":"abc","op":[1,"XY",2],"cursor":1,"rule":"otjs"}"#)
        #expect(otjs.stdout == "{\"cursor\":3}\n")
        let backward = try WhalesimRun.ot(
            "cursor", #"{"doc":"abc","op":[1,"XY",2],"cursor":{"anchor":3,"head":1},"rule":"own"}"#)
        #expect(backward.status == 0)
        #expect(backward.stdout == "{\"cursor\":{\"anchor\":5,\"head\":3}}\n")
    }

    /// Each kind of bad input: exit 64, nothing on stdout, one line on stderr naming the problem.
    @Test(arguments: [
        ("apply", "not json", "input is not valid JSON"),
        ("apply", "", "input is empty"),
        ("apply", #"{"doc":"\ud800","op":[1]}"#, #"ill-formed Unicode: lone surrogate escape \ud800 at byte 8"#),
        ("apply", #"{"doc":"\udc00x","op":[2]}"#, #"lone surrogate escape \udc00"#),
        ("apply", #"[1, 2]"#, "input must be a JSON object with keys doc, op, got an array"),
        ("apply", #"{"doc":"ab"}"#, #"missing key "op" in the input (expected doc, op)"#),
        ("apply", #"{"doc":"ab","op":[2],"extra":1}"#, #"unknown key "extra" in the input"#),
        ("apply", #"{"doc":5,"op":[2]}"#, #""doc" must be a string, got an integer"#),
        ("apply", #"{"doc":"ab","op":true}"#, #""op" must be an ot.js array or a {"n", "s"} object, got a boolean"#),
        ("apply", #"{"doc":"ab","op":[1.5]}"#, #""op"[0] must be an integer or a string, got a non-integer number"#),
        (
            "apply", #"{"doc":"ab","op":[3]}"#,
            #""op" does not span the document: it covers 3 scalars, the document has 2"#
        ),
        (
            "apply", #"{"doc":"ab","op":[1,0,1]}"#,
            #""op": component 1 is malformed: 0 is neither a retain nor a delete"#
        ),
        ("apply", #"{"doc":"ab","op":[2,""]}"#, #""op": component 1 is malformed: empty insert"#),
        (
            "apply", #"{"doc":"ab","op":{"n":[2,0],"s":[""]}}"#,
            #""op": mismatched array lengths: n has 2 entries, s has 1"#
        ),
        ("apply", #"{"doc":"ab","op":{"n":[2],"s":["x"]}}"#, #""op": component 0 is malformed: retain 2 carries text"#),
        ("apply", #"{"doc":"ab","op":{"n":[2],"s":[""],"x":[]}}"#, #"unknown key "x" in "op" in wire form"#),
        ("apply", #"{"doc":"ab","op":{"n":[2]}}"#, #"missing key "s" in "op" in wire form"#),
        ("apply", #"{"doc":"ab","op":{"n":["2"],"s":[""]}}"#, #""op".n[0] must be one of integers, got a string"#),
        ("apply", #"{"doc":"ab","op":[9223372036854775807,-1]}"#, "lengths add up to more than Int.max"),
        (
            "compose", #"{"doc":"ab","a":[2,"c"],"b":[2]}"#,
            #""b" does not span the document after a: it covers 2 scalars, the document after a has 3"#
        ),
        (
            "transform", #"{"doc":"ab","a":[2],"b":[1]}"#,
            #""b" does not span the document: it covers 1 scalars, the document has 2"#
        ),
        (
            "cursor", #"{"doc":"abc","op":[3],"cursor":9,"rule":"own"}"#,
            #""cursor": offset 9 is outside the document (0...3)"#
        ),
        (
            "cursor", #"{"doc":"abc","op":[3],"cursor":{"anchor":0,"head":-1},"rule":"own"}"#,
            #""cursor": offset -1 is outside the document"#
        ),
        (
            "cursor", #"{"doc":"abc","op":[3],"cursor":1,"rule":"sideways"}"#,
            #"unknown rule "sideways" (expected one of otjs, remote, own)"#
        ),
        (
            "cursor", #"{"doc":"abc","op":[3],"cursor":"1","rule":"own"}"#,
            #""cursor" must be an integer or an {"anchor", "head"} object, got a string"#
        ),
        ("cursor", #"{"doc":"abc","op":[3],"cursor":{"anchor":1},"rule":"own"}"#, #"missing key "head" in "cursor""#),
        ("cursor", #"{"doc":"abc","op":[3],"cursor":1}"#, #"missing key "rule""#),
    ])
    func badInputExits64WithAClearMessage(subcommand: String, input: String, message: String) throws {
        let run = try WhalesimRun.ot(subcommand, input)
        #expect(run.status == 64, "\(input) → \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("whalesim: ot \(subcommand): "), "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderr.filter { $0 == "\n" }.count == 1, "one line: \(run.stderr)")
    }

    @Test func invalidUTF8Exits64() throws {
        let run = try WhalesimRun.run(["ot", "apply"], stdin: Data([0x7B, 0x22, 0xFF, 0x22, 0x7D]))
        #expect(run.status == 64)
        #expect(run.stderr == "whalesim: ot apply: ill-formed Unicode: invalid UTF-8 at byte 2\n")
    }

    @Test(arguments: ["apply", "compose", "transform", "cursor"])
    func helpShowsAnExample(subcommand: String) throws {
        let run = try WhalesimRun.run(["ot", subcommand, "--help"], stdin: Data())
        #expect(run.status == 0)
        #expect(run.stdout.contains("Example:"))
        #expect(run.stdout.contains("whalesim ot \(subcommand)"))
    }
}
