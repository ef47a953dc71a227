import WhaleOT

/// 64-bit FNV-1a, fed field by field with type tags and lengths so that different event
/// sequences cannot serialize to the same bytes. Integers go in as one 64-bit word each
/// (FNV-1a's xor-multiply step on words rather than bytes: eight times fewer steps on the
/// simulated path); text goes in byte by byte. Used for the history hash (stable across
/// processes and platforms, unlike `Hasher`, which is seeded per process).
struct FNV1a: Sendable {
    private(set) var state: UInt64 = 0xcbf2_9ce4_8422_2325

    @inline(__always) mutating func byte(_ b: UInt8) {
        state = (state ^ UInt64(b)) &* 0x0000_0100_0000_01B3
    }

    @inline(__always) mutating func feed(_ value: Int) {
        state = (state ^ UInt64(bitPattern: Int64(value))) &* 0x0000_0100_0000_01B3
    }

    @inline(__always) mutating func feed(_ text: String) {
        feed(text.utf8.count)
        for b in text.utf8 { byte(b) }
    }

    mutating func feed(_ lines: [String]) {
        feed(lines.count)
        for line in lines { feed(line) }
    }

    mutating func feed(_ selection: Selection?) {
        guard let selection else { byte(0); return }
        byte(1)
        feed(selection.anchor)
        feed(selection.head)
    }

    mutating func feed(_ op: Operation) {
        feed(op.components.count)
        for component in op.components {
            switch component {
            case .retain(let n): byte(1); feed(n)
            case .insert(let text, _): byte(2); feed(text)
            case .delete(let n): byte(3); feed(n)
            }
        }
    }

    var hex: String {
        let digits = String(state, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension FNV1a {
    mutating func feed(_ event: HistoryEvent) {
        switch event {
        case .edit(let c, let p, let d, let i): byte(1); feed(c); feed(p); feed(d); feed(i)
        case .invoke(let c, let id, let op, let r): byte(2); feed(c); feed(id); feed(op); feed(r)
        case .send(let c, let id, let op, let r): byte(3); feed(c); feed(id); feed(op); feed(r)
        case .ack(let c, let id, let r): byte(4); feed(c); feed(id); feed(r)
        case .failed(let c, let id, let code): byte(5); feed(c); feed(id); feed(code)
        case .serverApply(let d, let c, let id, let op, let r): byte(6); feed(d); feed(c); feed(id); feed(op); feed(r)
        case .serverRevision(let d, let f, let t, let cause): byte(7); feed(d); feed(f); feed(t); feed(cause)
        case .clientRevision(let c, let r): byte(8); feed(c); feed(r)
        case .error(let c, let code, let m): byte(9); feed(c); feed(code); feed(m)
        case .cursorDelivered(let c, let r, let s): byte(10); feed(c); feed(r); feed(s)
        case .selectionSet(let c, let r, let s): byte(11); feed(c); feed(r); feed(s)
        case .ownCursor(let c, let r, let s, let n): byte(12); feed(c); feed(r); feed(s); feed(n)
        case .remoteCursor(let o, let s, let r, let sel, let n): byte(13); feed(o); feed(s); feed(r); feed(sel); feed(n)
        case .connect(let c): byte(14); feed(c)
        case .disconnect(let c, let cause): byte(15); feed(c); feed(cause)
        case .serverCrash: byte(16)
        case .serverRestart: byte(17)
        case .note(let text): byte(18); feed(text)
        case .heal: byte(19)
        case .quiescence(let reached, let ticks): byte(20); byte(reached ? 1 : 0); feed(ticks)
        case .traffic(let m, let e, let c): byte(21); feed(m); feed(e); feed(c)
        case .clientFinal(let c, let t, let r, let p, let conn):
            byte(22); feed(c); feed(t); feed(r); feed(p); byte(conn ? 1 : 0)
        case .serverFinal(let d, let t, let r, let h): byte(23); feed(d); feed(t); feed(r); feed(h)
        case .modelInvoke(let c, let id, let m): byte(24); feed(c); feed(id); feed(m)
        case .modelApply(let c, let id, let o, let records): byte(25); feed(c); feed(id); feed(o); feed(records)
        case .modelAck(let c, let id, let o): byte(26); feed(c); feed(id); feed(o)
        case .modelFailed(let c, let id, let code): byte(27); feed(c); feed(id); feed(code)
        case .modelClientFinal(let c, let page, let records, let p):
            byte(28); feed(c); feed(page); feed(records); feed(p)
        case .modelServerFinal(let c, let page, let records): byte(29); feed(c); feed(page); feed(records)
        case .modelServerState(let records): byte(30); feed(records)
        case .observation(let d, let f, let t, let k, let detail):
            byte(31); feed(d); feed(f); feed(t); feed(k.rawValue); feed(detail)
        }
    }
}
