import WhaleOT
import WhaleProtocol

extension Simulation {
    /// After quiescence: every client sets a selection (most collapsed at one shared spot per
    /// document), the run goes quiet, the first client of each document (and every fourth
    /// one after it) types at that spot, all at the same tick, the run goes quiet again, and
    /// every own and remote cursor is observed for the cursor checker. The clients that do not
    /// type keep cursors exactly where the text lands: the case the remote rule decides.
    mutating func probeCursors(deadline: SimTime) -> Bool {
        var spot: [Int] = []
        for (d, _) in resourceIds.enumerated() {
            let owner = sessions.indices.first { history.clientDocuments[$0] == d }
            let n = owner.map { sessions[$0].document.count } ?? 0
            spot.append(probeRandom.int(in: 0...n))
        }
        for c in sessions.indices {
            let n = sessions[c].document.count
            let at = min(spot[history.clientDocuments[c]], n)
            var selection = Selection(cursor: at)
            if c % 3 == 2 {
                let other = probeRandom.int(in: 0...n)
                selection =
                    probeRandom.chance(0.5) ? Selection(anchor: at, head: other) : Selection(anchor: other, head: at)
            }
            counts.actions += 1
            clientHandle(c, .localSelection(selection))
            record(.selectionSet(client: c, revision: sessions[c].revision, selection: sessions[c].selection))
        }
        guard pumpUntilQuiet(deadline: deadline) else { return false }
        editsLeft = sessions.count
        for c in sessions.indices where sessions[c].selection.isCollapsed && isProbeTypist(c) {
            counts.actions += 1
            edit(
                c, at: sessions[c].selection.head, deleting: 0,
                inserting: generator.snippet(probeRandom.int(in: 1...2), using: &probeRandom))
        }
        editsLeft = 0
        guard pumpUntilQuiet(deadline: deadline) else { return false }
        for c in sessions.indices {
            let s = sessions[c]
            let length = s.document.count
            record(.ownCursor(client: c, revision: s.revision, selection: s.selection, textLength: length))
            for other in sessions.indices
            where other != c && history.clientDocuments[other] == history.clientDocuments[c] {
                let view = s.remoteCursors.first { $0.clientId == clientIds[other] }?.selection
                record(
                    .remoteCursor(
                        observer: c, subject: other, revision: s.revision, selection: view, textLength: length))
            }
        }
        return true
    }

    /// The first client of each document, and every fourth client.
    func isProbeTypist(_ c: Int) -> Bool {
        let d = history.clientDocuments[c]
        return sessions.indices.first { history.clientDocuments[$0] == d } == c || c % 4 == 3
    }
}
