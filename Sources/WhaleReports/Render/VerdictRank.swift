/// Orders verdict names the way the checkers merge them: valid < unknown < invalid
/// (anything unrecognised counts as unknown).
enum VerdictRank {
    static func rank(_ verdict: String) -> Int {
        switch verdict {
        case "valid": 0
        case "invalid": 2
        default: 1
        }
    }

    static func worse(_ a: String, _ b: String) -> String { rank(a) >= rank(b) ? a : b }
}
