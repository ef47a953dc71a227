extension FakeSalesforce {
    /// `POST /composite`: up to 25 subrequests run in order through the same routing (one API call,
    /// no per-subrequest faults), with `@{referenceId.path}` substitution in URLs and bodies.
    ///
    /// `allOrNone: true`: the first failing subrequest rolls the org back to how it was when the
    /// composite began and every other subrequest answers 400 `PROCESSING_HALTED`. (The rollback
    /// restores the whole org, so a write another client made meanwhile is undone too: acceptable
    /// for a fake, noted in docs/whats-here.md.)
    func composite(_ request: SFRequest, version: String, session: SFSession) -> SFResponse {
        guard let body = try? JSONValue.parse(request.body), case .object = body else {
            return .error(400, "JSON_PARSER_ERROR", "The composite request body must be a JSON object")
        }
        guard let subrequests = body["compositeRequest"]?.arrayValue else {
            return .error(400, "INVALID_INPUT", "The compositeRequest array is required")
        }
        guard !subrequests.isEmpty, subrequests.count <= 25 else {
            return .error(
                400, "INVALID_INPUT",
                "A composite request must have between 1 and 25 subrequests, not \(subrequests.count)")
        }
        let allOrNone = body["allOrNone"]?.boolValue ?? false
        var parsed: [(method: String, url: String, referenceId: String, body: JSONValue?)] = []
        for (i, sub) in subrequests.enumerated() {
            guard let method = sub["method"]?.stringValue, let url = sub["url"]?.stringValue,
                let ref = sub["referenceId"]?.stringValue, !ref.isEmpty
            else {
                return .error(400, "INVALID_INPUT", "Subrequest \(i) needs method, url and referenceId")
            }
            guard url.hasPrefix("/services/data/v") else {
                return .error(400, "INVALID_INPUT", "Subrequest \(ref): the url must start with /services/data/vXX.X")
            }
            guard !parsed.contains(where: { $0.referenceId == ref }) else {
                return .error(400, "INVALID_INPUT", "Duplicate referenceId provided in the request: \(ref)")
            }
            parsed.append((method.uppercased(), url, ref, sub["body"]))
        }
        let snapshot = allOrNone ? org.snapshot() : nil
        var results: [(referenceId: String, status: Int, body: JSONValue, headers: [(String, String)])] = []
        var succeeded: [String: JSONValue] = [:]
        var failed = false
        for sub in parsed {
            if failed && allOrNone {
                results.append((sub.referenceId, 400, Self.processingHalted, []))
                continue
            }
            let url: String, subBody: JSONValue?
            do {
                url = try Self.substitute(sub.url, succeeded)
                subBody = try sub.body.map { try Self.substitute($0, succeeded) }
            } catch {
                results.append(
                    (
                        sub.referenceId, 400,
                        .array([
                            .object([
                                ("errorCode", "PROCESSING_HALTED"),
                                ("message", .string((error as? ReferenceError)?.message ?? "\(error)")),
                            ])
                        ]), []
                    ))
                failed = true
                continue
            }
            var inner = SFRequest(
                method: sub.method, target: url, headers: request.headers,
                body: subBody.map { Array($0.serialized().utf8) } ?? [])
            inner.baseURL = request.baseURL
            var outcome = Outcome()
            let response = dispatch(Route(inner), inner, session: session, outcome: &outcome)
            let parsedBody =
                response.body.isEmpty
                ? JSONValue.null : ((try? JSONValue.parse(response.body)) ?? .string(response.bodyText))
            var headers: [(String, String)] = []
            if response.status == 201, let id = parsedBody["id"]?.stringValue {
                headers.append(("Location", url.split(separator: "?").first.map { String($0) + "/" + id } ?? id))
            }
            results.append((sub.referenceId, response.status, parsedBody, headers))
            if response.status >= 400 { failed = true } else { succeeded[sub.referenceId] = parsedBody }
        }
        if allOrNone && failed, let snapshot {
            state.withLock { $0.rollbacks += 1 }
            org.restore(snapshot)
            results = results.map { r in r.status < 400 ? (r.referenceId, 400, Self.processingHalted, []) : r }
        }
        let items: [JSONValue] = results.map { r in
            .object([
                ("body", r.body),
                ("httpHeaders", .object(r.headers.map { ($0.0, .string($0.1)) })),
                ("httpStatusCode", .int(r.status)),
                ("referenceId", .string(r.referenceId)),
            ])
        }
        return .json(200, .object([("compositeResponse", .array(items))]))
    }

    static let processingHalted: JSONValue = .array([
        .object([
            ("errorCode", "PROCESSING_HALTED"),
            ("message", "The transaction was rolled back since another operation in the same transaction failed."),
        ])
    ])

    struct ReferenceError: Error { var message: String }

    /// Replaces every `@{ref.path}` in `text` with the value found in the earlier response `ref`.
    static func substitute(_ text: String, _ responses: [String: JSONValue]) throws(ReferenceError) -> String {
        guard text.contains("@{") else { return text }
        var out = ""
        var rest = Substring(text)
        while let start = rest.range(of: "@{") {
            out += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
                throw ReferenceError(message: "Invalid reference specified: unterminated @{ in \(text)")
            }
            let expression = String(rest[start.upperBound..<end])
            let value = try resolve(expression, responses)
            switch value {
            case .string(let s): out += s
            case .int(let i): out += String(i)
            case .double(let d): out += String(d)
            case .bool(let b): out += String(b)
            default: out += value.serialized()
            }
            rest = rest[rest.index(after: end)...]
        }
        return out + rest
    }

    /// Substitutes inside every string of a JSON body; a string that is exactly one reference takes
    /// the referenced value's JSON type.
    static func substitute(_ value: JSONValue, _ responses: [String: JSONValue]) throws(ReferenceError) -> JSONValue {
        switch value {
        case .string(let s):
            if s.hasPrefix("@{"), s.hasSuffix("}"), s.firstIndex(of: "}") == s.index(before: s.endIndex) {
                return try resolve(String(s.dropFirst(2).dropLast()), responses)
            }
            return .string(try substitute(s, responses))
        case .array(let items):
            var out: [JSONValue] = []
            for item in items { out.append(try substitute(item, responses)) }
            return .array(out)
        case .object(let pairs):
            var out: [(String, JSONValue)] = []
            for (k, v) in pairs { out.append((k, try substitute(v, responses))) }
            return .object(out)
        default:
            return value
        }
    }

    /// `ref.records[0].Id` → the value in response `ref`.
    static func resolve(_ expression: String, _ responses: [String: JSONValue]) throws(ReferenceError) -> JSONValue {
        var parts = expression.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let ref = parts.removeFirst()
        guard var current = responses[ref] else {
            throw ReferenceError(
                message:
                    "Invalid reference specified. No value for \(expression) found in \(ref). Provided referenceId ('\(ref)') must start with a letter and be the referenceId of an earlier subrequest that succeeded."
            )
        }
        for part in parts {
            var key = Substring(part)
            var indexes: [Int] = []
            while key.hasSuffix("]"), let open = key.lastIndex(of: "["),
                let n = Int(key[key.index(after: open)..<key.index(before: key.endIndex)])
            {
                indexes.insert(n, at: 0)
                key = key[..<open]
            }
            if !key.isEmpty {
                guard let next = current[String(key)] else {
                    throw ReferenceError(
                        message: "Invalid reference specified. No value for \(expression) found in \(ref).")
                }
                current = next
            }
            for n in indexes {
                guard let next = current[n] else {
                    throw ReferenceError(
                        message: "Invalid reference specified. No value for \(expression) found in \(ref).")
                }
                current = next
            }
        }
        return current
    }
}

extension Org {
    /// Puts back a snapshot taken with `snapshot()` (composite `allOrNone` rollback).
    func restore(_ saved: OrgState) {
        state.withLock { $0 = saved }
    }
}
