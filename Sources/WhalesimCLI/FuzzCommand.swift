import ArgumentParser
import Foundation
import SalesforceFake
import WhaleEmbedded
import WhaleSim

/// `whalesim fuzz soql|wire`: the CI fuzz tests' generators, run longer. Prints the throughput
/// and every finding with the command that replays it; exits 2 on a finding, 0 otherwise.
///
/// ```
/// whalesim fuzz soql --seed 7 --seconds 60
/// whalesim fuzz wire --seed 7 --count 1000000
/// whalesim fuzz soql --seed 7 --from 4242 --count 1 --verbose   # replay one case
/// ```
struct FuzzCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz",
        abstract: "Fuzz the SOQL engine or the protocol (seeded, replayable; exit 2 on a finding).",
        discussion: """
            Examples:
              whalesim fuzz soql --seed 7 --count 2000
              whalesim fuzz wire --seed 7 --seconds 60
            """,
        subcommands: [FuzzSOQLCommand.self, FuzzWireCommand.self]
    )
}

/// Options shared by both fuzz targets.
struct FuzzOptions: ParsableArguments {
    @Option(help: "The seed; case i of a seed is always the same input.")
    var seed: UInt64 = 1

    @Option(help: "The first case to run.")
    var from = 0

    @Option(help: "How many cases (default: run until --seconds are up).")
    var count: Int?

    @Option(help: "Stop after this many seconds (default 30 when --count is not given).")
    var seconds: Double?

    @Flag(help: "Print each case before running it (to find the input of a trap).")
    var verbose = false

    func validate() throws {
        guard from >= 0 else { throw BadInput("--from \(from): expected 0 or more").exit() }
        if let count, count < 1 { throw BadInput("--count \(count): expected 1 or more").exit() }
        if let seconds, !(seconds > 0) { throw BadInput("--seconds \(seconds): expected a positive number").exit() }
    }

    /// Runs `batch` over consecutive ranges of 1,000 cases until the count or the time is used up.
    func drive(_ name: String, _ batch: (Range<Int>) -> (cases: Int, findings: [String])) -> ExitCode {
        let clock = ContinuousClock()
        let start = clock.now
        let limit: Duration? = count == nil ? .seconds(seconds ?? 30) : seconds.map { .milliseconds(Int($0 * 1000)) }
        var next = from, cases = 0
        var findings: [String] = []
        while count.map({ next < from + $0 }) ?? true {
            if let limit, clock.now - start > limit { break }
            let end = count.map { min(next + 1_000, from + $0) } ?? next + 1_000
            let result = batch(next..<end)
            cases += result.cases
            findings += result.findings
            next = end
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        print(
            "whalesim fuzz \(name) --seed \(seed): cases \(from)..<\(next), \(cases) in \(String(format: "%.1f", seconds)) s, \(Int(Double(cases) / max(seconds, 1e-9))) cases/s"
        )
        for finding in findings.prefix(50) { print("finding: \(finding)") }
        if findings.isEmpty {
            print("no findings")
            return ExitStatus.pass
        }
        print("\(findings.count) finding(s)")
        return ExitStatus.correctnessViolated
    }
}

struct FuzzSOQLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soql",
        abstract: "Generated and mutated SOQL over an org: a result or a Salesforce error within 1 s, never a trap.",
        discussion: """
            Examples:
              whalesim fuzz soql --seed 7 --count 2000
              # replay one case of a finding
              whalesim fuzz soql --seed 7 --from 1042 --count 1 --verbose
            """
    )

    @OptionGroup var options: FuzzOptions

    @Option(help: "Org fixture directory (default: the small org, ./Fixtures or built in).")
    var org: String?

    func run() throws {
        let loaded: Org
        defer { BuiltinFixtures.cleanUp() }
        let orgPath = try SmallOrg.directory(given: org)
        do { loaded = try Org.load(directory: URL(fileURLWithPath: orgPath)) } catch {
            throw BadInput("--org \(orgPath): \(error)").exit()
        }
        let seed = options.seed
        let verbose = options.verbose
        throw options.drive("soql") { range in
            let report = SOQLFuzzRun.run(
                org: loaded, seed: seed, range: range,
                before: verbose
                    ? { i, q in
                        // Unbuffered, so the last line before a trap is the input that trapped.
                        FileHandle.standardOutput.write(Data("case \(i): \(q)\n".utf8))
                    } : nil)
            return (
                report.cases,
                report.findings.map {
                    "\($0)\n  replay: whalesim fuzz soql --seed \(seed) --from \($0.index) --count 1 --verbose"
                }
            )
        }
    }
}

struct FuzzWireCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wire",
        abstract: "Mutated frames through WireCodec, random event sequences through CollabServer and ClientSession.",
        discussion: """
            Examples:
              whalesim fuzz wire --seed 7 --count 2000
              whalesim fuzz wire --seed 7 --seconds 60
            """
    )

    @OptionGroup var options: FuzzOptions

    func run() throws {
        let seed = options.seed
        let verbose = options.verbose
        throw options.drive("wire") { range in
            let report = WireFuzz.run(
                seed: seed, range: range,
                before: verbose
                    ? { i in
                        FileHandle.standardOutput.write(Data("case \(i)\n".utf8))
                    } : nil)
            return (
                report.cases,
                report.findings.map {
                    "\($0)\n  replay: whalesim fuzz wire --seed \(seed) --from \($0.index) --count 1"
                }
            )
        }
    }
}
