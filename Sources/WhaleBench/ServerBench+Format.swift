import Foundation

extension ServerBench {
    /// The figures as the lines print them: a ratio, a percentage, KB (medians: `median(_:)`).
    func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f", b > 0 ? a / b : 0) }
    func percent(_ x: Double) -> String { String(format: "%.0f%%", x * 100) }
    func kb(_ bytes: Double) -> String { String(format: "%.1f", bytes / 1024) }
}
