/// Cuts one note's history out of a run record into a scripted scenario (``ScriptSpec``) that the
/// simulator follows exactly: every client of the note connects, disconnects and edits when the
/// live user did (times in ms become ticks), an op reaches the server when the live server
/// applied it (an `arrive` at each `serverApply`, so the simulated server applies the note's ops
/// in the live order), a client sees the server's broadcasts when the live client's revision
/// moved (a `receive` at each `clientRevision`: an acknowledgement the live client never got is
/// never delivered before its socket breaks), and explicit selections are replayed.
///
/// A server crash and restart happen when they did live (`server-crash`, or `power-loss` where the
/// record notes a power loss before the crash, then `server-start`): the simulated server keeps
/// what its storage model makes durable, which for a power loss under `ack-before-durable` is
/// what was acknowledged more than the commit interval before the crash.
///
/// A resend the live server acknowledged again without applying it (or refused) still has to
/// reach the simulated server, or the client would wait for its acknowledgement forever: it
/// arrives right after it was sent, unless its socket broke before any answer (then it was lost).
public enum ReproducerBuilder {
    /// The scripted scenario for `note`; `notes` collects what could not be carried over.
    public static func build(
        lines: [NamedHistoryLine], summary: LiveRecordSummary, note: LiveRecordSummary.Note,
        notes: inout [String]
    ) -> Scenario {
        let clients = note.clients
        func clientIndex(_ name: String) -> Int { clients.firstIndex(of: name) ?? -1 }
        func documentIndex(_ name: String) -> Int { name == note.name ? 0 : 1 }

        /// A step and where it goes: `(time, line, sub)` orders steps as the history did.
        struct Placed { var time: Int; var line: Int; var sub: Int; var step: ScriptSpec.Step }
        var placed: [Placed] = []
        @discardableResult
        func put(_ t: Int, _ line: Int, _ client: Int, _ action: ScriptSpec.Action, sub: Int = 0) -> Int {
            placed.append(
                Placed(
                    time: max(0, t), line: line, sub: sub,
                    step: ScriptSpec.Step(at: max(0, t), client: client, action: action)))
            return placed.count - 1
        }

        struct Send { var opId: String; var time: Int; var line: Int; var applied = false }
        struct Apply {
            var client: Int; var line: Int; var time: Int; var revision: Int; var sendLine: Int?; var step = 0
        }
        var sends: [[Send]] = Array(repeating: [], count: clients.count)
        var applies: [Apply] = []
        /// Revisions the note's clients reached (acks and clientRevision), to date each apply.
        var seen: [(line: Int, time: Int, revision: Int)] = []
        /// Per client: answers (ack or refusal), and connect and disconnect steps (indexes into `placed`).
        var answers: [[(opId: String, line: Int)]] = Array(repeating: [], count: clients.count)
        var disconnects: [[Int]] = Array(repeating: [], count: clients.count)
        var connects: [[Int]] = Array(repeating: [], count: clients.count)
        var skippedApplies = 0
        var firstBaseLength: Int?
        var lastRevision = Array(repeating: 0, count: clients.count)
        /// A `power loss` note (the live runner's and the simulator's) says the next crash is one.
        var powerLossNoted = false
        /// Live backpressure marks: when, where in the history, whose, on or off, after which revision.
        var marks: [(time: Int, line: Int, client: Int, on: Bool, revision: Int)] = []

        for (i, line) in lines.enumerated() {
            if let name = line.clients.first, line.type != "serverApply", clientIndex(name) < 0 { continue }
            if let d = line.document, d != note.name { continue }
            guard let event = line.event(clientIndex, documentIndex) else { continue }
            let t = line.time
            switch event {
            case .connect(let c): connects[c].append(put(t, i, c, .connect))
            case .disconnect(let c, let cause): disconnects[c].append(put(t, i, c, .disconnect(cause: cause)))
            case .edit(let c, let position, let deleted, let inserted):
                if deleted > 0 || !inserted.isEmpty {
                    put(t, i, c, .edit(position: position, delete: deleted, insert: inserted))
                }
            case .selectionSet(let c, _, let selection):
                put(t, i, c, .select(anchor: selection.anchor, head: selection.head))
            case .send(let c, let opId, _, _): sends[c].append(Send(opId: opId, time: t, line: i))
            case .serverApply(0, let c, let opId, let op, let revision):
                if firstBaseLength == nil { firstBaseLength = op.baseLength }
                guard c >= 0 else { skippedApplies += 1; continue }
                // The latest send of the op not applied yet is the one that got there (an
                // earlier one was lost with its socket, or applied before).
                var sendLine: Int?
                if let k = sends[c].lastIndex(where: { $0.opId == opId && !$0.applied }) {
                    sends[c][k].applied = true
                    sendLine = sends[c][k].line
                }
                applies.append(Apply(client: c, line: i, time: t, revision: revision, sendLine: sendLine))
            case .ack(let c, let opId, let revision):
                answers[c].append((opId, i))
                seen.append((i, t, revision))
            case .failed(let c, let opId, let code) where !code.hasPrefix("dropped"):
                answers[c].append((opId, i))  // the server refused it: it got there
            case .clientRevision(let c, let revision):
                if revision != lastRevision[c] { put(t, i, c, .receive(revision: revision)) }
                lastRevision[c] = revision
                seen.append((i, t, revision))
            case .serverCrash:
                put(t, i, ScriptSpec.Step.server, .serverCrash(powerLoss: powerLossNoted))
                powerLossNoted = false
            case .serverRestart:
                put(t, i, ScriptSpec.Step.server, .serverStart)
            case .note(let text) where text.hasPrefix("power loss"):
                powerLossNoted = true
            case .note(let text):
                // The simulator notes the backpressure it reports to the server (`c03 backpressure on`).
                let words = text.split(separator: " ").map(String.init)
                if words.count == 3, words[1] == "backpressure", clientIndex(words[0]) >= 0 {
                    put(t, i, clientIndex(words[0]), .slow(words[2] == "on"))
                }
                // A live server's mark says after which revision of the note it took effect
                // (`c003 backpressure on after revision 17`): placed once the applies are.
                if words.count == 6, words[1] == "backpressure", words[3] == "after", words[4] == "revision",
                    clientIndex(words[0]) >= 0, let revision = Int(words[5])
                {
                    marks.append((t, i, clientIndex(words[0]), words[2] == "on", revision))
                }
                // And its partitions (`partition cuts off c01,c03`, `partition of c01,c03 heals`).
                if words.count == 4, words[0] == "partition", words[1] == "cuts" {
                    for name in words[3].split(separator: ",") where clientIndex(String(name)) >= 0 {
                        put(t, i, clientIndex(String(name)), .partition(true))
                    }
                }
                if words.count == 4, words[0] == "partition", words[1] == "of", words[3] == "heals" {
                    for name in words[2].split(separator: ",") where clientIndex(String(name)) >= 0 {
                        put(t, i, clientIndex(String(name)), .partition(false))
                    }
                }
            default: break
            }
        }
        // The recorder notes an apply when the broadcast reaches it, often a few ms after a client
        // already had it: an op arrives 1 tick before the first client of the note was at its
        // revision, and never after a later op (times stay in server order).
        var arriveTimes = applies.map(\.time)
        var s0 = seen.startIndex
        for (k, a) in applies.enumerated() {
            while s0 < seen.count, seen[s0].time < a.time - 50 { s0 += 1 }
            var j = s0
            while j < seen.count, seen[j].line < a.line {
                if seen[j].revision == a.revision { arriveTimes[k] = min(arriveTimes[k], seen[j].time - 1) }
                j += 1
            }
        }
        if arriveTimes.count > 1 {
            for k in stride(from: arriveTimes.count - 2, through: 0, by: -1) {
                arriveTimes[k] = min(arriveTimes[k], arriveTimes[k + 1])
            }
        }
        for k in applies.indices { applies[k].step = put(arriveTimes[k], applies[k].line, applies[k].client, .arrive) }
        // A live mark goes right after the arrive of its revision (so the simulated server drops
        // the broadcasts of the same ops the live one did), or before the first arrive for
        // revision 0; a revision no apply of the cut has keeps the mark's time.
        // (The sort is not stable: marks at one place keep their history order by `sub`.)
        for (n, m) in marks.enumerated() {
            if let k = applies.firstIndex(where: { $0.revision == m.revision }) {
                let arrive = placed[applies[k].step]
                put(arrive.time, arrive.line, m.client, .slow(m.on), sub: 4 + n)
            } else if m.revision == 0, let first = applies.first {
                let arrive = placed[first.step]
                put(min(m.time, arrive.time), min(m.line, arrive.line) - 1, m.client, .slow(m.on), sub: n)
            } else {
                put(m.time, m.line, m.client, .slow(m.on))
            }
        }

        // A socket the client closed still delivers what was written to it: an op sent before a
        // disconnect and applied after it arrives before the disconnect, which waits for it (and
        // the client's next connect waits for the disconnect).
        func before(_ a: Placed, _ b: Placed) -> Bool { (a.time, a.line, a.sub) < (b.time, b.line, b.sub) }
        for c in clients.indices {
            for d in disconnects[c] {
                let dl = placed[d].line
                let late = applies.filter {
                    $0.client == c && ($0.sendLine ?? Int.max) < dl && !before(placed[$0.step], placed[d])
                }
                guard let last = late.map(\.step).max(by: { before(placed[$0], placed[$1]) }) else { continue }
                placed[d].time = placed[last].time
                placed[d].line = placed[last].line
                placed[d].sub = 2
                if let next = connects[c].first(where: { placed[$0].line > dl }), before(placed[next], placed[d]) {
                    placed[next].time = placed[d].time
                    placed[next].line = placed[d].line
                    placed[next].sub = 3
                }
            }
        }
        // A send no apply accounts for reached the server if its client got an answer for the op
        // before its socket next broke (a resend acknowledged again, a refusal): it arrives at once.
        for c in sends.indices {
            for s in sends[c] where !s.applied {
                let end = disconnects[c].map { placed[$0].line }.first { $0 > s.line } ?? Int.max
                if answers[c].contains(where: { $0.opId == s.opId && $0.line > s.line && $0.line < end }) {
                    put(s.time, s.line, c, .arrive, sub: 1)
                }
            }
        }
        if skippedApplies > 0 {
            notes.append(
                "\(skippedApplies) server applies on \(note.name) came from clients outside the note: left out")
        }
        placed.sort { ($0.time, $0.line, $0.sub) < ($1.time, $1.line, $1.sub) }
        for k in placed.indices { placed[k].step.at = placed[k].time }

        var s = Scenario(name: "reproducer")
        s.description = "\(summary.scenario) seed \(summary.seed): \(note.name) cut from the run record"
        s.clients = max(1, clients.count)
        s.documents = 1
        s.protocolVersion = summary.protocolVersion
        s.alphabet = note.initialText.unicodeScalars.allSatisfy(\.isASCII) ? .ascii : .unicode
        s.initialText = startingText(note: note, summary: summary, firstBaseLength: firstBaseLength, notes: &notes)
        s.delay = .fixed(1)
        s.livenessBudget = 20_000
        s.faults = summary.faults.filter { FaultCatalog.names.contains($0) }
        s.storageSync = summary.storageSync
        s.checkers = summary.checkers.filter { $0 != .model }
        s.script = ScriptSpec(delivery: .scripted, steps: placed.map(\.step))
        s.ops = s.script!.editCount
        return s
    }

    /// The note's text when the run began: the record's (a note with a history), the built-in
    /// scenario's for a simulator record (`run.json` does not hold it), else empty (a live run's
    /// fresh note: its first client types the scenario's text) or, when the first op says the
    /// note was not empty, that many placeholder characters (a note says so).
    static func startingText(
        note: LiveRecordSummary.Note, summary: LiveRecordSummary, firstBaseLength: Int?, notes: inout [String]
    ) -> String {
        if !note.initialText.isEmpty { return note.initialText }
        if summary.timeUnit == "ticks", let builtin = try? BuiltinScenarios.scenario(named: summary.scenario),
            builtin.initialText.unicodeScalars.count == (firstBaseLength ?? builtin.initialText.unicodeScalars.count)
        {
            return builtin.initialText
        }
        guard let n = firstBaseLength, n > 0 else { return "" }
        notes.append("the record does not hold \(note.name)'s starting text: \(n) placeholder characters stand for it")
        return String(repeating: "~", count: n)
    }
}
