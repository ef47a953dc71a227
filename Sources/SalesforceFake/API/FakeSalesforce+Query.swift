import Foundation

extension FakeSalesforce {
    /// `GET /query?q=` and `/queryAll?q=`: runs the SOQL, serves the first page and keeps the rest
    /// behind a locator when there is more than one page.
    func query(
        _ request: SFRequest, version: String, includeDeleted: Bool, session: SFSession,
        outcome: inout Outcome
    ) -> SFResponse {
        guard let soql = request.queryParameters["q"], !soql.trimmingCharacters(in: .whitespaces).isEmpty else {
            return .error(400, "MALFORMED_QUERY", "A query string has to be specified")
        }
        outcome.soql = soql
        let result: SOQLResult
        let key = QueryResultCache.Key(
            soql: soql, version: version, includeDeleted: includeDeleted,
            generation: org.writeGeneration(rollbacks: state.withLock { $0.rollbacks }))
        if let cached = state.withLock({ $0.results.lookup(key) }) {
            if let page = cached.page {
                outcome.rows = cached.result.records.count
                var response = SFResponse.json(200, text: "")
                response.body = page
                return response
            }
            result = cached.result
        } else {
            do {
                result = try SOQL.execute(soql, in: org, apiVersion: version, includeDeleted: includeDeleted)
            } catch {
                return Self.response(for: error)
            }
            // Small answers fit in any page size: keep their serialized page too.
            let page =
                result.records.count <= 200
                ? Array(Self.page(totalSize: result.totalSize, rows: result.records[...], next: nil).utf8) : nil
            state.withLock { $0.results.store(.init(result: result, page: page), for: key) }
        }
        let pageSize = Self.batchSize(request.header("Sforce-Query-Options"), default: org.settings.defaultPageSize)
        let rows = result.records
        if rows.count <= pageSize {
            outcome.rows = rows.count
            return .json(200, text: Self.page(totalSize: result.totalSize, rows: rows[...], next: nil))
        }
        let id = state.withLock { $0.cursors.open(.init(rows: rows, totalSize: result.totalSize, pageSize: pageSize)) }
        outcome.rows = pageSize
        let next = "/services/data/v\(version)/\(includeDeleted ? "queryAll" : "query")/\(id)-\(pageSize)"
        return .json(200, text: Self.page(totalSize: result.totalSize, rows: rows[0..<pageSize], next: next))
    }

    /// `GET /query/<locator>`: the page starting at the locator's offset.
    func queryMore(locator: String, version: String, all: Bool, outcome: inout Outcome) -> SFResponse {
        guard let (id, offset) = QueryCursorStore.parse(locator),
            let cursor = state.withLock({ $0.cursors.cursor(id) }), offset <= cursor.rows.count
        else {
            return .error(400, "INVALID_QUERY_LOCATOR", "invalid query locator")
        }
        let end = min(cursor.rows.count, offset + cursor.pageSize)
        outcome.rows = end - offset
        var next: String?
        if end < cursor.rows.count {
            next = "/services/data/v\(version)/\(all ? "queryAll" : "query")/\(id)-\(end)"
        }
        return .json(200, text: Self.page(totalSize: cursor.totalSize, rows: cursor.rows[offset..<end], next: next))
    }

    /// `Sforce-Query-Options: batchSize=N`: Salesforce takes 200...2000 and treats the value as a
    /// hint; out-of-range values are clamped into that range, unparsable ones ignored.
    static func batchSize(_ header: String?, default pageSize: Int) -> Int {
        let fallback = min(2000, max(1, pageSize))
        guard let header else { return fallback }
        for option in header.split(separator: ",") {
            let parts = option.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, parts[0].lowercased() == "batchsize" else { continue }
            guard let n = Int(parts[1]) else { return fallback }
            return min(2000, max(200, n))
        }
        return fallback
    }

    /// `{"totalSize":…,"done":…,"nextRecordsUrl":…,"records":[…]}` written straight to text.
    static func page(totalSize: Int, rows: ArraySlice<JSONValue>, next: String?) -> String {
        var out = "{\"totalSize\":\(totalSize),\"done\":\(next == nil)"
        if let next {
            out += ",\"nextRecordsUrl\":"
            JSONValue.string(next).write(into: &out)
        }
        out += ",\"records\":["
        var first = true
        for row in rows {
            if !first { out += "," }
            first = false
            row.write(into: &out)
        }
        out += "]}"
        return out
    }
}
