/// A weighted choice among cases, drawn with a seeded generator. Zero weights never come up.
///
/// ```swift
/// let mix = WeightedChoice([("typing", 3), ("paste", 1)])
/// let action = mix.draw(using: &rng)   // "typing" three times out of four
/// ```
public struct WeightedChoice<Element: Sendable>: Sendable {
    public private(set) var elements: [Element] = []
    private var cumulative: [Int] = []
    public var total: Int { cumulative.last ?? 0 }

    public init(_ weighted: [(Element, Int)]) {
        var sum = 0
        for (element, weight) in weighted where weight > 0 {
            sum += weight
            elements.append(element)
            cumulative.append(sum)
        }
    }

    /// One element, or nil when every weight is zero.
    public func draw(using rng: inout SimRandom) -> Element? {
        guard total > 0 else { return nil }
        let x = rng.int(in: 0...(total - 1))
        var lo = 0, hi = cumulative.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if cumulative[mid] > x { hi = mid } else { lo = mid + 1 }
        }
        return elements[lo]
    }
}
