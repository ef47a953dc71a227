import ArgumentParser
import Foundation
import WhaleBench
import WhaleOT
import WhalesimTesting

/// `whalesim bench ot`: the OT core's speed and memory targets, each with a baseline measured
/// in the same run (docs/decisions/0001-ot-document-gap-buffer.md records the figures and the choice
/// of representation).
///
/// ```
/// swift run -c release whalesim bench ot
/// ```
struct BenchOTCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ot",
        abstract: "Trace replay, random edits, transforms/s and memory of the OT core.",
        discussion: """
            Targets: automerge-paper replay into TextDocument ≤ 100 ms; ≥ 3 million transforms/s \
            of small op pairs on a 1,000-scalar document; a 1,000,000-scalar TextDocument in ≤ 16 MB. \
            Exits 1 when a target is missed, 2 when a replay gives the wrong text.

            Example:
              swift run -c release whalesim bench ot
            """
    )

    @Option(help: "Runs per measurement; the median is reported.")
    var runs = 5

    @Option(help: "Folder holding the editing traces (default: Fixtures/traces of this package).")
    var traces: String?

    @Option(help: "Seed of the random edits and operation pairs.")
    var seed: UInt64 = 1

    func run() throws {
        print("whalesim bench ot — command: swift run -c release whalesim bench ot --runs \(runs) --seed \(seed)")
        if !isReleaseBuild { print("warning: debug build; figures are meaningless (use -c release)") }
        var missed: [String] = []
        var wrong: [String] = []

        let memory = BenchOTMemory.measure()
        print(memory.report)
        if memory.rssDeltaBytes > 16 * 1024 * 1024 { missed.append("memory") }

        let directory = traces.map { URL(fileURLWithPath: $0) } ?? EditingTrace.defaultDirectory
        let trace: EditingTrace
        do {
            trace = try EditingTrace.load(name: "automerge-paper", directory: directory)
        } catch {
            throw BadInput("cannot load the automerge-paper trace: \(error)").exit()
        }
        let replay = BenchOTReplay(trace: trace, runs: runs)
        print(replay.report)
        wrong += replay.wrongText
        if replay.gapBuffer.median > 0.100 { missed.append("trace replay") }

        for length in [100_000, 1_000_000] {
            let random = BenchOTRandomEdits(runs: runs, seed: seed, documentLength: length)
            print(random.report)
            wrong += random.wrongText
        }

        let transforms = BenchOTTransform(runs: runs, seed: seed)
        print(transforms.report)
        if transforms.perSecond < 3_000_000 { missed.append("transforms/s") }

        if !wrong.isEmpty {
            printError("whalesim: bench ot: wrong text from \(wrong.joined(separator: ", "))")
            throw ExitStatus.correctnessViolated
        }
        if !missed.isEmpty {
            print("MISSED: \(missed.joined(separator: ", "))")
            throw ExitStatus.thresholdBreached
        }
        print("all targets met")
    }
}
