/// The rows of queries with more than one page, kept so `nextRecordsUrl` can serve the rest.
///
/// Locators look like Salesforce's: `01g` + 15 characters from a counter (deterministic, never random),
/// then `-<offset>`. Bounded: past `capacity` open cursors the oldest is dropped and its locators
/// answer `INVALID_QUERY_LOCATOR`, as Salesforce does when a user opens too many.
struct QueryCursorStore: Sendable {
    struct Cursor: Sendable {
        var rows: [JSONValue]
        var totalSize: Int
        var pageSize: Int
    }

    private var cursors: BoundedFIFOMap<String, Cursor>
    private var counter = 0

    init(capacity: Int) { cursors = BoundedFIFOMap(capacity: max(1, capacity)) }

    var capacity: Int { cursors.capacity }

    /// Stores a result and returns its cursor id.
    mutating func open(_ cursor: Cursor) -> String {
        counter += 1
        let digits = String(counter, radix: 36, uppercase: true)
        let id = "01g" + String(repeating: "0", count: max(0, 15 - digits.count)) + digits
        cursors.insert(cursor, for: id)
        return id
    }

    func cursor(_ id: String) -> Cursor? { cursors[id] }

    mutating func remove(cursorId id: String) { cursors.remove(id) }

    var openCount: Int { cursors.count }

    /// `01g…-2000` → (`01g…`, 2000); nil when malformed.
    static func parse(_ locator: String) -> (id: String, offset: Int)? {
        guard let dash = locator.lastIndex(of: "-"), let offset = Int(locator[locator.index(after: dash)...]),
            offset >= 0
        else { return nil }
        return (String(locator[..<dash]), offset)
    }

    static func cursorId(of locator: String) -> String { parse(locator)?.id ?? locator }
}
