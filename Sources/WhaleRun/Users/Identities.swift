/// Who the virtual users sign in as: the seed's Acme users (Fixtures/whaler/seed.json) and the
/// fake org's Salesforce users (Fixtures/salesforce/small/credentials.json, password + security
/// token). Many virtual users share one person's login, as one person's several devices do.
enum Identities {
    static let whaler: [(email: String, password: String)] = [
        ("ann@acme.test", "whale-ann-1"), ("bo@acme.test", "whale-bo-1"), ("cy@acme.test", "whale-cy-1"),
    ]
    static let salesforce: [(user: String, password: String)] = [
        ("admin@whaler.test", "whaler123TOKEN123"), ("sam@whaler.test", "sampass1SAMTOKEN"),
        ("rita@whaler.test", "ritapass1RITATOKEN"),
    ]
}
