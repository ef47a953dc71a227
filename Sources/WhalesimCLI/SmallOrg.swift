import WhaleEmbedded

/// The small Salesforce org's directory for commands whose `--org` (or `--template`) is optional
/// (`fake-salesforce`, `fuzz soql`, `bench http`, `bench salesforce`):
/// the one given, else `./Fixtures/salesforce/small`, else `Fixtures/` beside the binary, else the
/// built-in copy written to a temporary directory (removed by `BuiltinFixtures.cleanUp()`). The
/// defaults used to be `Fixtures/salesforce/small` relative to the working directory, so these
/// commands stopped at once outside the project.
enum SmallOrg {
    static func directory(given: String?) throws -> String {
        if let given { return given }
        do {
            return try BuiltinFixtures.directory(given: nil, holding: "salesforce/small/org.json").url
                .appendingPathComponent("salesforce/small").path
        } catch {
            throw BadInput("cannot write the built-in org to a temporary directory: \(error)").exit()
        }
    }
}
