import Foundation
import WhaleRun

/// Resident memory from /proc/self/status (Linux); 0 where unavailable.
package enum ProcessMemory {
    /// Resident MB after handing freed heap back to the system (glibc `malloc_trim`), so the figure
    /// is live data rather than what generation left in malloc's free lists.
    package static func residentMB() -> Double {
        FreedHeap.returnToSystem()
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kb = line.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
            return kb / 1024
        }
        return 0
    }
}
