/// The running total of a decoded operation's component lengths. Lengths come from the
/// network and from files, so an absurd total must be a `malformedComponent` error, never an
/// integer-overflow trap in the builders. Base and target lengths are both at most this total.
struct LengthBudget {
    private var total = 0

    /// Adds one component's length (`n >= 0`), failing if the total would pass `Int.max`.
    mutating func add(_ n: Int, index: Int) throws(OTError) {
        let (sum, overflow) = total.addingReportingOverflow(n)
        guard !overflow else { throw .malformedComponent(index: index, reason: "lengths add up to more than Int.max") }
        total = sum
    }

    /// The length of a delete given as a negative number; `Int.min` has no positive counterpart.
    static func deleteLength(_ negative: Int, index: Int) throws(OTError) -> Int {
        guard negative != .min else { throw .malformedComponent(index: index, reason: "delete of Int.min") }
        return -negative
    }
}
