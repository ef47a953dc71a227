/// The most a checker held at once while it read a history: applied ops in its log's windows and
/// per-op entries (ops in flight). Tests assert on it that a checker's memory does not grow with
/// the length of the run (docs/decisions/0032-checkers-with-bounded-memory.md).
struct CheckFootprint: Equatable, Sendable {
    var windowEntries = 0
    var opEntries = 0

    mutating func see(windowEntries: Int, opEntries: Int) {
        self.windowEntries = max(self.windowEntries, windowEntries)
        self.opEntries = max(self.opEntries, opEntries)
    }
}
