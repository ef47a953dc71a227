import WhaleOT

extension ClientSession {
    mutating func onLocalEdit(position: Int, deleting: Int, inserting: String, _ actions: inout [Action]) {
        let length = document.count
        guard position >= 0, deleting >= 0, position + deleting <= length else {
            actions.append(.failed("edit at \(position) deleting \(deleting) is outside the document (0...\(length))"))
            return
        }
        let op = Operation.replace(in: length, at: position, deleting: deleting, inserting: inserting)
        guard !op.isNoop else { return }
        // What goes on the wire is the op as the client counts; faults count in other units.
        let sent =
            has(.utf8LengthUnits) || has(.graphemeLengthUnits)
            ? misCountedOp(position: position, deleting: deleting, inserting: inserting) : op
        do {
            try document.apply(op)
        } catch {
            actions.append(.failed("local edit: \(error)"))
            return
        }
        selection = try! op.transform(selection: clamped(selection, to: length), rule: .own)
        moveRemoteCursors(through: op)
        // No cursorUpdate after an edit: the server moves this client's last shared selection
        // through the op with the own rule, as done here, and the op's broadcast carries it.

        if var pending = buffer {
            pending.op = composeForBuffer(pending.op, sent, &actions) ?? pending.op
            buffer = pending
            actions.append(.editApplied(opId: pending.opId, op: op))
        } else if outstanding != nil {
            let pending = PendingOp(opId: makeOpId(), op: sent)
            buffer = pending
            actions.append(.editApplied(opId: pending.opId, op: op))
        } else {
            let pending = PendingOp(opId: makeOpId(), op: sent)
            outstanding = pending
            actions.append(.editApplied(opId: pending.opId, op: op))
            if connection == .joined { actions.append(.send(change(pending))) }
        }
    }

    func composeForBuffer(_ a: Operation, _ b: Operation, _ actions: inout [Action]) -> Operation? {
        do {
            return has(.composeSignError) ? try composeWithSignError(a, b) : try Operation.compose(a, b)
        } catch {
            actions.append(.failed("compose: \(error)"))
            return nil
        }
    }

    /// The op the unit-mismatch faults send: positions and lengths counted in UTF-8 bytes or
    /// grapheme clusters of the client's text (as the original Whaler did in places), measured
    /// on the text before the edit.
    func misCountedOp(position: Int, deleting: Int, inserting: String) -> Operation {
        let unit: TextUnit = has(.utf8LengthUnits) ? .utf8 : .grapheme
        let prefix = unit.length(of: document.text(in: 0..<position))
        let removed = unit.length(of: document.text(in: position..<(position + deleting)))
        let whole = unit.length(of: document.text)
        var op = Operation()
        op.retain(prefix)
        op.insert(inserting)
        op.delete(removed)
        op.retain(whole - prefix - removed)
        return op
    }

    func clamped(_ selection: Selection, to length: Int) -> Selection {
        Selection(anchor: min(max(selection.anchor, 0), length), head: min(max(selection.head, 0), length))
    }

    /// Remote cursors stay before text inserted at them (the fault uses the ot.js rule).
    mutating func moveRemoteCursors(through op: Operation) {
        let rule: CursorRule = has(.remoteCursorWrongRule) ? .otjs : .remote
        for index in remoteCursors.indices {
            let s = remoteCursors[index].selection
            remoteCursors[index].selection = Selection(
                anchor: op.transformUnchecked(cursor: min(s.anchor, op.baseLength), rule: rule),
                head: op.transformUnchecked(cursor: min(s.head, op.baseLength), rule: rule))
        }
    }
}
