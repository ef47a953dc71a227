import Foundation

/// A HAR file as a browser's developer tools export it (HAR 1.2; Chromium adds each websocket's
/// frames as `_webSocketMessages`: `{type: send|receive, time: epoch seconds, opcode, data}`) made
/// into a session recording: the same events, sessions and placeholders the recording proxy
/// writes. Requests under `/services/` are Salesforce's; the rest the Whaler server's.
public enum HARImport {
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var message: String
        public var description: String { message }
    }

    struct Raw {
        var t: Double
        var order: Int
        var build: (inout SessionTracker, Int) -> SessionEvent
    }

    public static func recording(from data: Data, source: String) throws(Problem) -> SessionRecording {
        guard let root = JSONValue.parse([UInt8](data)) else {
            throw Problem(message: "\(source): not JSON (a HAR file is one JSON object with a \"log\")")
        }
        guard let log = root["log"], let entries = log["entries"]?.array else {
            throw Problem(message: "\(source): no log.entries: not a HAR file")
        }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        var raws: [Raw] = []
        var first = Double.infinity
        var upstream: String?
        for (n, entry) in entries.enumerated() {
            guard let started = entry["startedDateTime"]?.string,
                let date = iso.date(from: started) ?? plain.date(from: started),
                let request = entry["request"], let method = request["method"]?.string,
                let urlText = request["url"]?.string, let url = URLComponents(string: urlText),
                let response = entry["response"]
            else {
                throw Problem(
                    message: "\(source): entry \(n) lacks startedDateTime, request.method, request.url or response")
            }
            let start = date.timeIntervalSince1970
            first = min(first, start)
            let path =
                (url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath)
                + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
            let target: SessionEvent.Target = url.path.hasPrefix("/services/") ? .salesforce : .whaler
            if target == .whaler, upstream == nil, let scheme = url.scheme, let host = url.host {
                upstream = "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")"
            }
            let headers = Self.headers(request["headers"])
            let connection = "c\(n + 1)"
            let status = response["status"]?.int ?? 0
            let messages = entry["_webSocketMessages"]?.array ?? []
            if status == 101 || entry["_resourceType"]?.string == "websocket" || !messages.isEmpty {
                raws.append(
                    Raw(t: start, order: raws.count) { tracker, t in
                        tracker.wsOpen(t: t, connection: connection, target: target, path: path, headers: headers)
                    })
                var last = start
                for m in messages {
                    guard let type = m["type"]?.string, let time = m["time"].flatMap(Self.number),
                        let text = m["data"]?.string
                    else {
                        throw Problem(message: "\(source): entry \(n): a websocket message without type, time or data")
                    }
                    let opcode = m["opcode"]?.int ?? 1
                    guard opcode == 1 || opcode == 2 else { continue }
                    // Chromium gives a binary frame's data as base64.
                    let payload = opcode == 2 ? [UInt8](Data(base64Encoded: text) ?? Data(text.utf8)) : Array(text.utf8)
                    last = max(last, time)
                    raws.append(
                        Raw(t: time, order: raws.count) { tracker, t in
                            tracker.wsMessage(
                                t: t, connection: connection, target: target, fromClient: type == "send",
                                payload: payload, binary: opcode == 2)
                        })
                }
                raws.append(
                    Raw(t: last, order: raws.count) { tracker, t in
                        tracker.wsClose(t: t, connection: connection, target: target)
                    })
                continue
            }
            let body = Array((request["postData"]?["text"]?.string ?? "").utf8)
            let content = response["content"]
            var responseBody = Array((content?["text"]?.string ?? "").utf8)
            if content?["encoding"]?.string == "base64", let d = Data(base64Encoded: content?["text"]?.string ?? "") {
                responseBody = [UInt8](d)
            }
            var responseHeaders = Self.headers(response["headers"])
            if let mime = content?["mimeType"]?.string,
                !responseHeaders.contains(where: { $0.0.lowercased() == "content-type" })
            {
                responseHeaders.append(("Content-Type", mime))
            }
            let duration = entry["time"].flatMap(Self.number) ?? 0
            raws.append(
                Raw(t: start + duration / 1000, order: raws.count) { tracker, t in
                    tracker.http(
                        t: t, connection: connection, target: target, method: method, path: path, headers: headers,
                        requestBody: body, status: status, responseHeaders: responseHeaders, responseBody: responseBody,
                        durationMs: Int(duration.rounded()))
                })
        }
        raws.sort { ($0.t, $0.order) < ($1.t, $1.order) }
        var tracker = SessionTracker()
        let events = raws.map { raw in raw.build(&tracker, Int(((raw.t - first) * 1000).rounded())) }
        let startedAt = first.isFinite ? plain.string(from: Date(timeIntervalSince1970: first)) : nil
        return SessionRecording(
            header: .init(source: "har", upstream: upstream, startedAt: startedAt), events: events)
    }

    static func number(_ v: JSONValue) -> Double? {
        switch v {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    static func headers(_ v: JSONValue?) -> [(String, String)] {
        (v?.array ?? []).compactMap { h in
            guard let name = h["name"]?.string, let value = h["value"]?.string else { return nil }
            return (name, value)
        }
    }
}
