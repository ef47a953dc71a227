import ArgumentParser
import Foundation
import WhaleRecord
import WhaleRun
import WhaleSim

/// `whalesim check RUN_DIR`: judges a recorded live run again from its history, with this build's
/// checkers, and prints each checker's verdict beside the one the run recorded.
///
/// ```
/// whalesim check Reports/soak/latest
/// /usr/bin/time -v whalesim check Reports/soak/latest   # what judging a long run costs
/// ```
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Judge a recorded live run again from its history.",
        discussion: """
            RUN_DIR is a live run's directory (a `latest` link works): its run.json names the notes, the \
            clients and the checkers, its history (history.whr, or an older run's history.jsonl) is read a \
            line at a time. Prints a line per checker (this build's verdict, its evidence count, and the \
            run's recorded verdict when it differs) and the first evidence lines. Exit codes: 0 valid, \
            2 a checker says invalid, 3 one says unknown, 66 no such directory or no history in it, 64 a \
            run.json or history that cannot be read (truncated, damaged, not a live run's).

            Examples:
              whalesim run live-demo --clients 6 --documents 2 --duration 3s
              whalesim check Reports/live-demo/latest
              whalesim check Reports/live-demo/latest --checker convergence
            """
    )

    @Argument(help: "A live run directory.")
    var runDirectory: String

    @Option(help: "Evidence lines printed per checker.")
    var evidence = 5

    @Option(name: .customLong("checker"), help: "Judge with this checker only, not those the run named (repeatable).")
    var checkers: [String] = []

    func run() throws {
        var only: [CheckerName]?
        if !checkers.isEmpty {
            only = try checkers.map { name in
                guard let checker = CheckerName(rawValue: name) else {
                    throw BadInput(
                        "check: no checker \(name) (\(CheckerName.allCases.map(\.rawValue).joined(separator: ", ")))"
                    ).exit()
                }
                return checker
            }
        }
        let judged: RecordCheck.Judged
        do {
            judged = try RecordCheck.judge(runDirectory, only: only)
        } catch let e as RecordFileError {
            printError("whalesim: check: \(e.message)")
            if case .missing = e { throw HistoryCommand.noInput }
            throw ExitStatus.badInput
        } catch {
            printError("whalesim: check: \(error)")
            throw ExitStatus.badInput
        }
        print(
            "\(judged.scenario) seed \(judged.seed): \(judged.events) history events (\(judged.packedBytes / 1_000_000) MB packed)"
        )
        for result in judged.results {
            let recorded = judged.recorded.first { $0.checker == result.checker.rawValue }?.verdict
            let was = recorded.map { $0 == result.verdict.rawValue ? "" : " (recorded: \($0))" } ?? " (not recorded)"
            let findings = result.findings.isEmpty ? "" : ", \(result.findings.count) findings"
            print(
                "\(result.checker.rawValue): \(result.verdict.rawValue), \(result.evidence.count) evidence\(findings)\(was)"
            )
            for line in result.evidence.prefix(evidence) { print("  \(line)") }
        }
        let verdict = Checkers.merged(judged.results)
        print("verdict: \(verdict.rawValue)")
        switch verdict {
        case .valid: return
        case .invalid: throw ExitStatus.correctnessViolated
        case .unknown: throw ExitStatus.inconclusive
        }
    }
}
