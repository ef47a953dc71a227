import Foundation
import WhaleReports
import WhaleSim

extension RunCommand {
    /// How long a failing run may spend turning its first violation into a shrunk simulator
    /// reproducer (the cut and the first simulation are quick; shrinking takes the rest).
    static let reproduceSeconds = 60.0
    /// How long it may spend naming the catalog fault a `--server` behaves like, when the
    /// reproducer does not fail against whalesim's correct server (a clean run spends nothing).
    static let diagnoseSeconds = 60.0

    /// A failing run's first violation becomes `reproducer.yml` / `reproducer-shrunk.yml` in its
    /// directory (as `whalesim reproduce DIR` would), printed, and linked from its re-rendered report.
    /// The run's exit code stays its own; a violation that does not reproduce says why (that step's exit 3).
    func reproduceAfterRun(directory dir: String) {
        print(
            "reproducing the first violation in the simulator (at most \(Int(Self.reproduceSeconds)) s, and \(Int(Self.diagnoseSeconds)) s to diagnose a --server; --no-reproduce skips this)..."
        )
        do {
            let report = try ReproduceStep.run(
                runDir: dir, note: nil, shrinkSeconds: Self.reproduceSeconds, diagnoseSeconds: Self.diagnoseSeconds)
            for line in report.lines { print(line) }
            if report.reproduction.status == .notReproduced {
                print("reproduce step: exit 3 (not reproduced in simulation)")
            }
            try ReportFiles.write(RunDirectory.load(dir))
        } catch {
            printError("whalesim: could not reproduce the violation in the simulator: \(error)")
        }
    }
}
