import WhaleOT
import WhaleProtocol

extension Simulation {
    /// The workload's next action for client `c`, then its think time until the one after.
    mutating func act(_ c: Int) {
        guard editsLeft > 0 else { return }
        // The note is not on screen before the first join: nothing to edit yet.
        let action = sessions[c].hasJoined ? (mix.draw(using: &clientRandom[c]) ?? .idle) : .idle
        counts.actions += 1
        var think = scenario.thinkTime.sample(using: &clientRandom[c])
        if action.isModel {
            if !modelAct(c, action) { think *= 3 }  // nothing to do on this page: think longer
            queue.schedule(.act(client: c), at: clock.now + max(1, think))
            return
        }
        switch action {
        case .typingBurst:
            let count = clientRandom[c].int(in: 1...6)
            keystroke(c, remaining: count)
            think += count * 3
        case .paste:
            let text = generator.snippet(clientRandom[c].int(in: scenario.pasteSize), using: &clientRandom[c])
            editAtSelection(c, inserting: text)
        case .delete:
            deleteSomething(c)
        case .select:
            let n = sessions[c].document.count
            let a = clientRandom[c].int(in: 0...n), b = clientRandom[c].int(in: 0...n)
            clientHandle(c, .localSelection(Selection(anchor: a, head: b)))
        case .samePositionInsert:
            let text = generator.snippet(clientRandom[c].int(in: 1...3), using: &clientRandom[c])
            edit(c, at: hotPosition(c), deleting: 0, inserting: text)
        case .cursorMove:
            let n = sessions[c].document.count
            let head = min(max(sessions[c].selection.head + clientRandom[c].int(in: -5...5), 0), n)
            clientHandle(c, .localSelection(Selection(cursor: head)))
        case .idle:
            think *= 3
        case .reconnect:
            disconnect(c, cause: "client reconnect", reconnectAfter: 10 + clientRandom[c].int(in: 0...90))
        case .jump:
            let n = sessions[c].document.count
            clientHandle(c, .localSelection(Selection(cursor: clientRandom[c].int(in: 0...n))))
        case .moveAccount, .moveContact, .createTask, .completeTask, .reassignTask, .deleteTask, .track, .untrack,
            .assignAccount:
            break  // handled above
        }
        queue.schedule(.act(client: c), at: clock.now + max(1, think))
    }

    /// One keystroke at the caret; the rest of the burst follows a few ticks apart.
    mutating func keystroke(_ c: Int, remaining: Int) {
        guard editsLeft > 0, remaining > 0, sessions[c].hasJoined else { return }
        editAtSelection(c, inserting: generator.character(using: &clientRandom[c]))
        if remaining > 1 {
            queue.schedule(
                .keystroke(client: c, remaining: remaining - 1), at: clock.now + clientRandom[c].int(in: 1...3))
        }
    }

    /// Types `text` over the selection (replacing it) or at the caret.
    mutating func editAtSelection(_ c: Int, inserting text: String) {
        let s = sessions[c].selection
        let n = sessions[c].document.count
        let lo = min(min(s.anchor, s.head), n), hi = min(max(s.anchor, s.head), n)
        edit(c, at: lo, deleting: hi - lo, inserting: text)
    }

    /// Backspace (or deletes the selection) half the time, a word backwards (often more than
    /// was just typed) a fifth of the time, else a range somewhere.
    mutating func deleteSomething(_ c: Int) {
        let n = sessions[c].document.count
        guard n > 0 else { return }
        let s = sessions[c].selection
        let lo = min(min(s.anchor, s.head), n), hi = min(max(s.anchor, s.head), n)
        let roll = clientRandom[c].int(in: 0...9)
        if roll < 5 {
            if hi > lo {
                edit(c, at: lo, deleting: hi - lo, inserting: "")
            } else if lo > 0 {
                edit(c, at: lo - 1, deleting: 1, inserting: "")
            }
        } else if roll < 7, lo > 0 {
            let k = min(lo, clientRandom[c].int(in: 2...8))
            edit(c, at: lo - k, deleting: k + (hi - lo), inserting: "")
        } else {
            let at = clientRandom[c].int(in: 0...(n - 1))
            edit(c, at: at, deleting: min(n - at, clientRandom[c].int(in: 1...8)), inserting: "")
        }
    }

    /// Where concurrent inserts collide: the start, the end, or another client's cursor.
    mutating func hotPosition(_ c: Int) -> Int {
        let n = sessions[c].document.count
        switch clientRandom[c].int(in: 0...3) {
        case 0, 1: return 0
        case 2: return n
        default:
            let cursors = sessions[c].remoteCursors
            guard !cursors.isEmpty else { return 0 }
            return min(cursors[clientRandom[c].int(in: 0...(cursors.count - 1))].selection.head, n)
        }
    }

    /// One user edit: recorded as the user's intent, then handed to the session.
    mutating func edit(_ c: Int, at position: Int, deleting: Int, inserting text: String) {
        guard editsLeft > 0, deleting > 0 || !text.isEmpty else { return }
        editsLeft -= 1
        counts.edits += 1
        record(.edit(client: c, position: position, deleted: deleting, inserted: text))
        clientHandle(c, .localEdit(position: position, deleting: deleting, inserting: text))
    }
}
