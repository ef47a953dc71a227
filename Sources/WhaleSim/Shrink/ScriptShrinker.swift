import Foundation

/// Shrinks a failing scripted scenario (``ScriptSpec``) as ``Shrinker`` shrinks a seeded one, but
/// by deleting from the script while the failure holds: whole clients first (renumbered), then the
/// script's holds (network delivery, no `arrive` or `receive` steps) when the failure does not need
/// them, then every edit as a one-scalar insert at 0 when that keeps the failure, then steps (halves, quarters, ... single steps, as delta debugging does), then shorter inserted
/// text and a shorter initial text. A candidate is kept when `checker` still says invalid with
/// evidence of the same ``EvidenceKind`` as `kinds` names (any of them; empty: any evidence).
///
/// A scripted run draws nothing from the seed that matters (fixed delays), so one run per
/// candidate decides; the budget bounds runs and wall time.
public enum ScriptShrinker {
    public struct Outcome: Sendable {
        public var scenario: Scenario
        public var result: SimulationResult
        /// Simulations run while shrinking.
        public var runs: Int
        /// Whether the budget ran out before nothing more could be removed.
        public var budgetSpent: Bool
    }

    /// Whether `result` fails `checker` with evidence of the claim of one of `kinds` (``EvidenceKind/claim(_:)``).
    public static func fails(_ result: SimulationResult, checker: CheckerName, kinds: Set<String>) -> Bool {
        guard let r = result.results.first(where: { $0.checker == checker }), r.verdict == .invalid else {
            return false
        }
        guard !kinds.isEmpty else { return true }
        let claims = Set(kinds.map(EvidenceKind.claim))
        return r.evidence.contains { claims.contains(EvidenceKind.claim(EvidenceKind.of($0))) }
    }

    public static func shrink(
        _ scenario: Scenario, result: SimulationResult, checker: CheckerName, kinds: Set<String>,
        maxRuns: Int = 3_000, deadline: Date = .distantFuture
    ) -> Outcome {
        var best = scenario
        var bestResult = result
        var runs = 0
        var spent = false

        func holds(_ candidate: Scenario) -> Bool {
            guard runs < maxRuns, Date() < deadline else { spent = true; return false }
            runs += 1
            let r = Simulation.run(candidate, seed: candidate.seed)
            guard fails(r, checker: checker, kinds: kinds) else { return false }
            best = candidate
            bestResult = r
            return true
        }

        func withScript(_ base: Scenario, _ steps: [ScriptSpec.Step]) -> Scenario {
            var c = base
            c.script!.steps = steps
            c.ops = c.script!.editCount
            return c
        }

        /// Drops clients without steps and renumbers the rest.
        func compacted(_ s: Scenario) -> Scenario {
            let active = s.script!.activeClients
            guard active.count < s.clients, !active.isEmpty else { return s }
            var c = s
            c.script = s.script!.keepingClients(active)
            c.clients = active.count
            c.documents = min(c.documents, c.clients)
            return c
        }

        for _ in 0..<2 {
            // Whole clients, last first.
            var k = best.clients - 1
            while k >= 0, best.clients > 1 {
                let keep = (0..<best.clients).filter { $0 != k }
                var c = best
                c.script = best.script!.keepingClients(keep)
                c.clients = keep.count
                c.documents = min(c.documents, c.clients)
                c.ops = c.script!.editCount
                _ = holds(c)
                k -= 1
                if spent { break }
            }
            // Network delivery instead of the script's holds: when the failure does not need the
            // live order, every `arrive` and `receive` goes, and edits can then go one by one (with
            // the holds, deleting one edit moves every later revision a `receive` names).
            if best.script!.delivery == .scripted, !spent {
                var c = best
                c.script!.delivery = .network
                c.script!.steps.removeAll { step in
                    switch step.action {
                    case .arrive, .receive: true
                    default: false
                    }
                }
                _ = holds(compacted(c))
            }
            // Every edit a one-scalar insert at the start: a later edit's place and width then
            // no longer hang on the edits before it (a delete at 57 of a note cut to 40 scalars is
            // clamped to nothing), so deleting edits one by one cannot strand the failure.
            if !spent,
                best.script!.steps.contains(where: {
                    if case .edit(let p, let d, let t) = $0.action {
                        p != 0 || d != 0 || t.unicodeScalars.count != 1
                    } else {
                        false
                    }
                })
            {
                var c = best
                for k in c.script!.steps.indices {
                    guard case .edit(_, _, let text) = c.script!.steps[k].action else { continue }
                    let first = text.unicodeScalars.first.map { String($0) } ?? "x"
                    c.script!.steps[k].action = .edit(position: 0, delete: 0, insert: first)
                }
                _ = holds(c)
            }
            // Steps, in chunks that halve.
            var chunk = max(1, best.script!.steps.count / 2)
            while chunk >= 1, !spent {
                var i = 0
                while i < best.script!.steps.count, !spent {
                    var steps = best.script!.steps
                    steps.removeSubrange(i..<min(steps.count, i + chunk))
                    if !holds(compacted(withScript(best, steps))) { i += chunk }
                }
                if chunk == 1 { break }
                chunk /= 2
            }
            // Shorter inserted text, then a shorter initial text.
            for i in best.script!.steps.indices where !spent {
                guard i < best.script!.steps.count else { break }
                while case .edit(let p, let d, let text) = best.script!.steps[i].action, text.unicodeScalars.count > 1,
                    !spent
                {
                    var shorter = String.UnicodeScalarView()
                    shorter.append(contentsOf: text.unicodeScalars.prefix(text.unicodeScalars.count / 2))
                    var steps = best.script!.steps
                    steps[i].action = .edit(position: p, delete: d, insert: String(shorter))
                    if !holds(withScript(best, steps)) { break }
                }
            }
            while !best.initialText.isEmpty, !spent {
                var c = best
                let scalars = best.initialText.unicodeScalars
                var shorter = String.UnicodeScalarView()
                shorter.append(contentsOf: scalars.prefix(scalars.count / 2))
                c.initialText = String(shorter)
                if !holds(c) { break }
            }
        }
        // Start the script at tick 0 (a live run's cut starts at its milliseconds since the run began).
        if let first = best.script!.steps.first?.at, first > 0, !spent {
            var c = best
            for k in c.script!.steps.indices { c.script!.steps[k].at -= first }
            _ = holds(c)
        }
        return Outcome(scenario: best, result: bestResult, runs: runs, budgetSpent: spent)
    }
}
