import Foundation
import Testing
@testable import WhaleSession

/// The session file: written and read back whole; every kind of damage refused with the byte
/// offset where the file breaks, and what it is.
@Suite struct SessionFileTests {
    func sample() -> SessionRecording {
        SessionRecording(
            header: .init(source: "record", upstream: "http://127.0.0.1:8080"),
            events: [
                SessionEvent(
                    t: 0, session: "s1", connection: "c1", kind: .http, method: "POST", path: "/api/user/login",
                    status: 200, durationMs: 3, request: .object(["password": .string("{{password#1}}")])),
                SessionEvent(t: 5, session: "s1", connection: "c2", kind: .wsOpen, method: "GET", path: "/socket"),
                SessionEvent(t: 9, session: "s1", connection: "c2", kind: .wsSend, data: "{\"type\":\"docChange\"}"),
            ])
    }

    func scratch() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("session-\(UUID().uuidString).jsonl").path
    }

    @Test func aWrittenFileReadsBackTheSameAndIsOwnerOnly() throws {
        let path = scratch()
        defer { try? FileManager.default.removeItem(atPath: path) }
        // An existing file with a wider mode becomes owner-only too.
        FileManager.default.createFile(atPath: path, contents: Data("x".utf8), attributes: [.posixPermissions: 0o644])
        try sample().write(to: path)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try SessionRecording.read(path: path) == sample())
        #expect(sample().sessions == ["s1"])
    }

    /// What each bad file gets: the byte offset and why.
    @Test func damagedAndHalfWrittenFilesAreRefusedWithTheOffset() throws {
        let whole = sample().encoded()
        let lines = String(decoding: whole, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let offsets = lines.reduce(into: [0]) { $0.append($0.last! + $1.utf8.count + 1) }
        func refused(_ data: Data) -> SessionFileError? {
            do {
                _ = try SessionRecording.decode(data, path: "f")
                return nil
            } catch { return error }
        }
        // Cut in the middle of the third event: half-written.
        let cut = refused(whole.prefix(offsets[3] + 10))
        #expect(cut?.offset == offsets[3] && cut?.message.contains("cut short") == true, "\(String(describing: cut))")
        // Whole lines, no end line: the recorder was killed.
        let noEnd = refused(whole.prefix(offsets[4]))
        #expect(noEnd?.offset == offsets[4] && noEnd?.message.contains("no end line") == true)
        // A line that is not an event.
        var damaged = whole
        damaged.replaceSubrange(offsets[2]..<(offsets[2] + 1), with: Data("#".utf8))
        let bad = refused(damaged)
        #expect(bad?.offset == offsets[2] && bad?.message.contains("line 3 is not a session event") == true)
        // A line taken out: the end line's count disagrees.
        let missing = Data(lines.enumerated().filter { $0.offset != 2 }.map(\.element).joined(separator: "\n").utf8)
        #expect(refused(missing)?.message.contains("the end line counts 3 events, the file holds 2") == true)
        // Not a session file at all; empty; a newer version; time going back.
        #expect(refused(Data("{\"a\":1}\n".utf8))?.message.contains("not a session file header") == true)
        #expect(refused(Data())?.message == "the file is empty")
        let newer = String(decoding: whole, as: UTF8.self).replacingOccurrences(
            of: "\"whalesimSession\":1", with: "\"whalesimSession\":2")
        #expect(refused(Data(newer.utf8))?.message.contains("version 2") == true)
        let back = String(decoding: whole, as: UTF8.self).replacingOccurrences(of: "\"t\":9", with: "\"t\":-1")
        #expect(refused(Data(back.utf8))?.message.contains("before the previous event") == true)
        #expect(refused(Data(back.utf8))?.description.hasPrefix("f at byte \(offsets[3])") == true)
    }
}

/// The stream readers and the tracker: what a proxied connection's bytes become.
@Suite struct ConnectionTapTests {
    func request(_ method: String, _ path: String, headers: [String] = [], body: String = "") -> [UInt8] {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: x\r\n"
        for h in headers { text += h + "\r\n" }
        if !body.isEmpty { text += "Content-Length: \(body.utf8.count)\r\n" }
        return Array((text + "\r\n" + body).utf8)
    }

    func frame(_ text: String, masked: Bool, opcode: UInt8 = 1) -> [UInt8] {
        let payload = Array(text.utf8)
        var out: [UInt8] = [0x80 | opcode]
        let mask: [UInt8] = [1, 2, 3, 4]
        if payload.count < 126 {
            out.append((masked ? 0x80 : 0) | UInt8(payload.count))
        } else {
            out.append((masked ? 0x80 : 0) | 126)
            out += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        if masked { out += mask }
        out += masked ? payload.enumerated().map { $0.element ^ mask[$0.offset & 3] } : payload
        return out
    }

    @Test func aLoginThenAnAuthorizedQueryAndASocketAreOneSessionWithoutSecrets() {
        var tracker = SessionTracker()
        var tap = ConnectionTap(connection: "c1", target: .whaler)
        var events: [SessionEvent] = []
        // Bytes arrive in arbitrary pieces: one byte at a time here.
        for b in request(
            "POST", "/api/user/login", headers: ["Content-Type: application/json"],
            body: #"{"email":"ann@acme.test","password":"hunter2"}"#)
        {
            events += tap.fromClient([b], t: 1, tracker: &tracker)
        }
        let login =
            #"{"code":1000,"data":{"tokens":{"accessToken":"eyJhbGciOi.secret.jwt","refreshToken":"refresh-abcdef"}}}"#
        // A chunked response.
        let hex = String(login.utf8.count, radix: 16)
        events += tap.fromServer(
            Array(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n\(hex)\r\n\(login)\r\n0\r\n\r\n"
                    .utf8),
            t: 4, tracker: &tracker)
        events += tap.fromClient(
            request(
                "POST", "/query", headers: ["Authorization: eyJhbGciOi.secret.jwt"],
                body: #"{"query":"{ accounts { id } }"}"#),
            t: 5, tracker: &tracker)
        events += tap.fromServer(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}".utf8), t: 7, tracker: &tracker)
        var socket = ConnectionTap(connection: "c2", target: .whaler)
        events += socket.fromClient(
            request(
                "GET", "/socket?protocol=2&token=eyJhbGciOi.secret.jwt",
                headers: ["Upgrade: websocket", "ObjectId: acc-1"])
                + frame(#"{"type":"resourceConnection"}"#, masked: true), t: 8, tracker: &tracker)
        events += socket.fromServer(
            Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n".utf8)
                + frame(#"{"type":"poolJoined"}"#, masked: false),
            t: 9, tracker: &tracker)
        events += socket.fromClient(
            frame(String(repeating: "x", count: 300), masked: true, opcode: 2), t: 10, tracker: &tracker)
        events += socket.fromClient([0x88, 0x80, 0, 0, 0, 0], t: 11, tracker: &tracker)
        events += socket.closed(t: 12, tracker: &tracker)
        #expect(events.map(\.kind) == [.http, .http, .wsOpen, .wsSend, .wsReceive, .wsSend, .wsClose])
        #expect(Set(events.map(\.session)) == ["s1"])
        #expect(events[0].durationMs == 3 && events[0].status == 200)
        #expect(events[1].headers?["Authorization"] == "{{accessToken#1}}")
        #expect(
            events[2].path == "/socket?protocol=2&token={{accessToken#1}}" && events[2].headers?["ObjectId"] == "acc-1")
        #expect(events[3].data == #"{"type":"resourceConnection"}"# && events[5].data?.count == 300)
        let file = String(
            decoding: SessionRecording(header: .init(source: "record"), events: events).encoded(), as: UTF8.self)
        for secret in ["hunter2", "eyJhbGciOi.secret.jwt", "refresh-abcdef"] {
            #expect(!file.contains(secret), "\(secret) reached the file")
        }
        #expect(file.contains("{{password#1}}") && file.contains("{{refreshToken#1}}"))
    }

    @Test func aRefusedUpgradeLeavesTheConnectionHTTP() {
        var tracker = SessionTracker()
        var tap = ConnectionTap(connection: "c1", target: .whaler)
        var events = tap.fromClient(request("GET", "/socket", headers: ["Upgrade: websocket"]), t: 0, tracker: &tracker)
        events += tap.fromClient(request("GET", "/health"), t: 1, tracker: &tracker)
        events += tap.fromServer(
            Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n".utf8), t: 2, tracker: &tracker)
        events += tap.fromServer(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8), t: 3, tracker: &tracker)
        #expect(events.map(\.status) == [403, 200] && events.map(\.path) == ["/socket", "/health"])
        #expect(events[1].response == .string("ok"))
    }

    @Test func bytesThatAreNotHTTPAreSaidNotRecorded() {
        var tracker = SessionTracker()
        var tap = ConnectionTap(connection: "c1", target: .whaler)
        _ = tap.fromClient(Array("\u{16}\u{3}\u{1} binary TLS hello\r\n\r\n".utf8), t: 0, tracker: &tracker)
        #expect(tap.broken != nil)
    }

    @Test func salesforceSecretsArePlaceholders() {
        var r = SecretRedactor()
        let form = r.redactForm(
            "grant_type=password&client_id=abc&client_secret=s3cr3t&username=rep%40x.com&password=pw123456")
        #expect(
            form
                == "grant_type=password&client_id=abc&client_secret={{clientSecret#1}}&username=rep%40x.com&password={{password#1}}"
        )
        let token = r.redact(
            .object(["access_token": .string("00Dxx!AQ.session"), "instance_url": .string("https://x")]))
        #expect(token["access_token"] == .string("{{salesforceSession#1}}"))
        #expect(r.redactAuthorization("Bearer 00Dxx!AQ.session") == "Bearer {{salesforceSession#1}}")
        let soap = r.redactXML("<sessionId>00Dyy!soap.id</sessionId><password>pw</password>")
        #expect(soap == "<sessionId>{{salesforceSession#2}}</sessionId><password>{{password#2}}</password>")
    }
}
