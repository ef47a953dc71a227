extension FakeSalesforce {
    /// `GET /id/{orgId}/{userId}` with the session's bearer token: who the token belongs to, as the
    /// identity service answers (the URL is the `id` of every token response). A missing or dead
    /// token is 403 `Bad_OAuth_Token`; ids that are not the token's user are 404 `Bad_Id`, both plain
    /// text like Salesforce's.
    func identity(orgId: String, userId: String, session: SFSession?, baseURL: String) -> SFResponse {
        guard let session else { return Self.plain(403, "Bad_OAuth_Token") }
        let org18 = org.settings.orgId
        guard orgId == org18 || orgId == String(org18.prefix(15)),
            userId == session.userId || userId == String(session.userId.prefix(15))
        else {
            return Self.plain(404, "Bad_Id")
        }
        let user = org.record(id: session.userId)
        func text(_ field: String) -> JSONValue { user?[field]?.stringValue.map { .string($0) } ?? .null }
        let id = "\(baseURL)/id/\(org18)/\(session.userId)"
        let data = "/services/data/v{version}"
        return .json(
            200,
            .object([
                ("id", .string(id)), ("asserted_user", true), ("user_id", .string(session.userId)),
                ("organization_id", .string(org18)), ("username", .string(session.username)),
                ("nick_name", text("CommunityNickname")),
                ("display_name", user?["Name"]?.stringValue.map { .string($0) } ?? .string(session.username)),
                ("email", text("Email")), ("email_verified", true), ("first_name", text("FirstName")),
                ("last_name", text("LastName")),
                ("timezone", .string(org.settings.timeZone)), ("active", .bool(user?["IsActive"]?.boolValue ?? true)),
                ("user_type", "STANDARD"), ("language", "en_US"), ("locale", "en_US"), ("utcOffset", 0),
                (
                    "urls",
                    .object([
                        ("rest", .string("\(baseURL)\(data)/")), ("sobjects", .string("\(baseURL)\(data)/sobjects/")),
                        ("query", .string("\(baseURL)\(data)/query/")),
                        ("profile", .string("\(baseURL)/\(session.userId)")),
                    ])
                ),
                ("is_app_installed", true),
            ]))
    }

    static func plain(_ status: Int, _ text: String) -> SFResponse {
        SFResponse(status: status, headers: [("Content-Type", "text/plain;charset=UTF-8")], body: Array(text.utf8))
    }
}
