import Foundation
import WhaleLoad

/// Salesforce as the app calls it: OAuth 2.0 password grant (the app's "connect Salesforce"),
/// then SOQL over REST, following `nextRecordsUrl` page by page.
struct SalesforceAPI: Sendable {
    struct Connection: Sendable {
        let accessToken: String
        /// Where REST calls go (the OAuth answer's `instance_url`, or the configured base when
        /// the runner reaches an embedded fake over plain HTTP).
        let instanceURL: String
    }

    /// One account row of an import.
    struct AccountRecord: Sendable, Hashable {
        let id: String
        let name: String
        let industry: String?
        let billingState: String?
        let billingCity: String?
        let type: String?
        let website: String?
        let phone: String?
        let employees: Int?
    }

    let baseURL: String
    let apiVersion: String
    let client: APIClient
    /// Keep REST calls on `baseURL` whatever `instance_url` says (embedded fake over HTTP).
    var pinInstance = false

    func connect(username: String, password: String, clientId: String, clientSecret: String) async throws(APIError)
        -> Connection
    {
        let form = [
            ("grant_type", "password"), ("client_id", clientId), ("client_secret", clientSecret),
            ("username", username), ("password", password),
        ]
        .map { "\($0.0)=\(Self.formEscape($0.1))" }.joined(separator: "&")
        let json = try await client.json(
            HTTPRequestSpec(
                method: "POST", url: baseURL + "/services/oauth2/token",
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(form.utf8)),
            metric: "login")
        guard let o = json as? [String: Any], let token = o["access_token"] as? String,
            let instance = o["instance_url"] as? String
        else {
            client.metrics.error("salesforce:oauth")
            throw APIError("salesforce:oauth", "OAuth password grant for \(username) gave no token: \(json)")
        }
        return Connection(accessToken: token, instanceURL: pinInstance ? baseURL : instance)
    }

    /// Runs `soql` and follows `nextRecordsUrl` for at most `maxPages` pages.
    func query(_ soql: String, connection: Connection, maxPages: Int, batchSize: Int = 200) async throws(APIError) -> (
        records: [[String: Any]], pages: Int, done: Bool
    ) {
        var url = connection.instanceURL + "/services/data/v\(apiVersion)/query?q=" + Self.queryEscape(soql)
        var records: [[String: Any]] = []
        var pages = 0
        while pages < maxPages {
            let json = try await client.json(
                HTTPRequestSpec(
                    url: url,
                    headers: [
                        ("Authorization", "Bearer \(connection.accessToken)"),
                        ("Sforce-Query-Options", "batchSize=\(batchSize)"),
                    ]), metric: "soql")
            pages += 1
            client.metrics.count("soql_pages")
            guard let o = json as? [String: Any], let rows = o["records"] as? [[String: Any]] else {
                client.metrics.error("salesforce:query")
                throw APIError("salesforce:query", "not a query result: \(String(describing: json).prefix(200))")
            }
            records += rows
            guard o["done"] as? Bool == false, let next = o["nextRecordsUrl"] as? String else {
                return (records, pages, true)
            }
            url = connection.instanceURL + next
        }
        return (records, pages, false)
    }

    static func account(_ o: [String: Any]) -> AccountRecord? {
        guard let id = o["Id"] as? String, let name = o["Name"] as? String else { return nil }
        return AccountRecord(
            id: id, name: name, industry: o["Industry"] as? String, billingState: o["BillingState"] as? String,
            billingCity: o["BillingCity"] as? String, type: o["Type"] as? String, website: o["Website"] as? String,
            phone: o["Phone"] as? String, employees: (o["NumberOfEmployees"] as? NSNumber)?.intValue)
    }

    /// A SOQL string literal: backslash and single quote escaped, as Salesforce requires.
    static func soqlLiteral(_ value: String) -> String {
        var out = "'"
        for ch in value {
            switch ch {
            case "\\": out += "\\\\"
            case "'": out += "\\'"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\"": out += "\\\""
            default: out.append(ch)
            }
        }
        return out + "'"
    }

    /// The app's account search: stacked filters (field = value, all AND-ed), values escaped.
    static func accountQuery(filters: [(field: String, value: String)], limit: Int) -> String {
        var soql =
            "SELECT Id, Name, Industry, BillingCity, BillingState, Type, Website, Phone, NumberOfEmployees FROM Account"
        if !filters.isEmpty {
            soql += " WHERE " + filters.map { "\($0.field) = \(soqlLiteral($0.value))" }.joined(separator: " AND ")
        }
        return soql + " ORDER BY Name, Id LIMIT \(limit)"
    }

    static func queryEscape(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    static func formEscape(_ s: String) -> String { queryEscape(s) }
}
