import Foundation
import WhaleOT
import WhaleProtocol

/// The session cases: joins, acknowledgements and broadcasts, reconnects, resync, presence of
/// one user on two sockets, and a reader too slow to keep up (PROTOCOL.md §2 and §3).
enum SessionCases {
    static let all: [ConformCase] = [
        ConformCase(
            "sessions.ack-then-broadcast-order",
            "Ops from two members, some pipelined, reach every member once each in one server order; the author's ack sits at its op's place in that order."
        ) { c async throws(ConformFailure) in
            let (note, _) = try await c.note("order")
            let (a, conf) = try await c.member(.member, note: note, name: "A")
            let (b, _) = try await c.member(.colleague, note: note, name: "B")
            var rev = conf.revision, text = conf.initialState ?? "", order: [String] = []
            for round in 0..<3 {
                // A pipelines two ops (the second at the revision the first will make)...
                let n = text.unicodeScalars.count
                let a1 = Operation.replace(in: n, at: n, inserting: "a\(round)")
                let a2 = Operation.replace(in: n + 2, at: 0, inserting: "<")
                let s1 = a.send(a1, rev: rev), s2 = a.send(a2, rev: rev + 1)
                _ = try await a.takeOp(s2.messageId)
                _ = try await b.takeOp(s2.messageId)
                text = try! a2.apply(to: try! a1.apply(to: text))
                rev += 2
                order += [s1.messageId, s2.messageId]
                // ...then B, once it has both, sends one at the head.
                let b1 = Operation.replace(in: text.unicodeScalars.count, at: 1, inserting: "b")
                let s3 = b.send(b1, rev: rev)
                _ = try await b.takeOp(s3.messageId)
                _ = try await a.takeOp(s3.messageId)
                text = try! b1.apply(to: text)
                rev += 1
                order.append(s3.messageId)
            }
            try c.expect(
                a.opMessageIds == order, "A must see every op once, in server order \(order); it saw \(a.opMessageIds)")
            try c.expect(
                b.opMessageIds == order, "B must see every op once, in server order \(order); it saw \(b.opMessageIds)")
            let final = try await c.read(note)
            try c.expect(
                final.initialState == text && final.revision == rev,
                "the note must read \(quoted(text)) at revision \(rev); a fresh join reads \(quoted(final.initialState ?? "nil")) at \(final.revision)"
            )
        },
        ConformCase(
            "sessions.resend-after-reconnect-applied-once",
            "An op acknowledged, then resent with the same opId on a new socket (the ack was lost to a reconnect), is acknowledged again and not applied twice.",
            requires: [.protocol2], suspects: [.serverAppliesResendTwice]
        ) { c async throws(ConformFailure) in
            let (note, _) = try await c.note("resend")
            let (a, conf) = try await c.member(.member, note: note, name: "A")
            let op = Operation.replace(in: 6, at: 6, inserting: "!")
            let sent = a.send(op, rev: conf.revision)
            _ = try await a.takeOp(sent.messageId)
            await a.close()
            let (again, rejoined) = try await c.member(.member, note: note, name: "A2")
            try c.expect(
                rejoined.revision == conf.revision + 1,
                "after one acknowledged op the revision must be \(conf.revision + 1); the rejoin says \(rejoined.revision)"
            )
            let resent = again.send(op, rev: conf.revision, opId: sent.opId)
            let ack = try await again.takeOpOrError(resent.messageId)
            try c.expect(ack == op, "the resend must be acknowledged with the op as first applied, \(op); got \(ack)")
            let final = try await c.read(note)
            try c.expect(
                final.initialState == "resend!" && final.revision == conf.revision + 1,
                "the resent op (opId \(sent.opId ?? "")) must apply once: \"resend!\" at revision \(conf.revision + 1); a fresh join reads \(quoted(final.initialState ?? "nil")) at \(final.revision)"
            )
        },
        ConformCase(
            "sessions.resync-from-revision",
            "A member rejoining with its last revision gets exactly the ops it missed, in order, with their opIds; an unknown revision gets the full state.",
            requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            let (note, _) = try await c.note("resync")
            let (a, conf) = try await c.member(.member, note: note, name: "A")
            await a.close()
            let (b, _) = try await c.member(.colleague, note: note, name: "B")
            var text = conf.initialState ?? "", expected: [MissedOp] = []
            for i in 0..<3 {
                let op = Operation.replace(in: text.unicodeScalars.count, at: i, inserting: "\(i)")
                let sent = b.send(op, rev: conf.revision + i)
                let applied = try await b.takeOp(sent.messageId)
                expected.append(MissedOp(op: applied, opId: sent.opId))
                text = try! op.apply(to: text)
            }
            let resync = NoteClient(
                socket: try await c.socket(.member, pool: note, name: "A2"), resourceId: note, version: c.version,
                tag: "\(c.caseId)-A2")
            let answer = try await resync.join(revision: conf.revision)
            try c.expect(
                answer.revision == conf.revision + 3,
                "the resync must say revision \(conf.revision + 3); it says \(answer.revision)")
            try c.expect(
                answer.missedOps == expected,
                "a resync from revision \(conf.revision) must carry the 3 missed ops \(expected.map { "\($0.op) \($0.opId ?? "-")" }); it carried \(answer.missedOps.map { $0.map { "\($0.op) \($0.opId ?? "-")" } } ?? ["none (initialState \(quoted(answer.initialState ?? "nil")))"])"
            )
            let fresh = NoteClient(
                socket: try await c.socket(.member, pool: note, name: "A3"), resourceId: note, version: c.version,
                tag: "\(c.caseId)-A3")
            let unknown = try await fresh.join(revision: conf.revision + 100)
            try c.expect(
                unknown.initialState == text && unknown.revision == conf.revision + 3,
                "a resync from an unknown revision must get the full state \(quoted(text)) at \(conf.revision + 3); got \(quoted(unknown.initialState ?? "nil")) at \(unknown.revision), missedOps \(unknown.missedOps?.count ?? 0)"
            )
        },
        ConformCase(
            "sessions.join-at-revision-0",
            "A new note joins at revision 0 with empty text; an op at revision 0 is applied as sent and makes revision 1."
        ) { c async throws(ConformFailure) in
            let note = try await c.freshAccount()
            let (a, conf) = try await c.member(.member, note: note, name: "A")
            try c.expect(
                conf.revision == 0 && (conf.initialState ?? "") == "",
                "a fresh note must join at revision 0, empty; got revision \(conf.revision), \(quoted(conf.initialState ?? "nil"))"
            )
            let op = Operation.replace(in: 0, at: 0, inserting: "first")
            let applied = try await a.apply(op, rev: 0)
            try c.expect(applied == op, "the first op must apply as sent, \(op); got \(applied)")
            let final = try await c.read(note)
            try c.expect(
                final.revision == 1 && final.initialState == "first",
                "then the note reads \"first\" at revision 1; a fresh join reads \(quoted(final.initialState ?? "nil")) at \(final.revision)"
            )
        },
        ConformCase(
            "sessions.join-at-head",
            "A member joining a note with history gets its text and head revision, and its op at that revision applies as sent."
        ) { c async throws(ConformFailure) in
            let (note, revision) = try await c.note("history")
            let (a, conf) = try await c.member(.member, note: note, name: "A")
            var text = conf.initialState ?? ""
            for i in 0..<3 {
                let op = Operation.replace(in: text.unicodeScalars.count, at: 0, inserting: "\(i)")
                try await a.apply(op, rev: conf.revision + i)
                text = try! op.apply(to: text)
            }
            let (b, head) = try await c.member(.colleague, note: note, name: "B")
            try c.expect(
                head.revision == revision + 3 && head.initialState == text,
                "a join after 3 more ops must read \(quoted(text)) at revision \(revision + 3); it read \(quoted(head.initialState ?? "nil")) at \(head.revision)"
            )
            let op = Operation.replace(in: text.unicodeScalars.count, at: text.unicodeScalars.count, inserting: ".")
            let applied = try await b.apply(op, rev: head.revision)
            try c.expect(applied == op, "an op at the head revision must apply as sent, \(op); got \(applied)")
        },
        ConformCase(
            "sessions.leave-and-rejoin",
            "When every member has left, the note keeps its text and revision: a rejoin reads them, and an op at that revision applies as sent.",
            suspects: [.revisionResetOnEmpty]
        ) { c async throws(ConformFailure) in
            let note = try await c.freshAccount()
            let (a, conf) = try await c.member(.member, note: note, name: "A")
            var text = conf.initialState ?? ""
            for i in 0..<3 {
                let op = Operation.replace(
                    in: text.unicodeScalars.count, at: text.unicodeScalars.count, inserting: "\(i)")
                try await a.apply(op, rev: conf.revision + i)
                text = try! op.apply(to: text)
            }
            await a.close()
            try? await Task.sleep(for: c.target.quietPeriod)  // the server notices the leave
            let (b, again) = try await c.member(.member, note: note, name: "A2")
            try c.expect(
                again.revision == conf.revision + 3 && again.initialState == text,
                "after everyone left, a rejoin must read \(quoted(text)) at revision \(conf.revision + 3); it read \(quoted(again.initialState ?? "nil")) at revision \(again.revision)"
            )
            let op = Operation.replace(in: text.unicodeScalars.count, at: 0, inserting: "^")
            let applied = try await b.apply(op, rev: again.revision)
            try c.expect(applied == op, "an op at the rejoin's revision must apply as sent, \(op); got \(applied)")
        },
        ConformCase(
            "sessions.two-sockets-one-user",
            "One user on two sockets of one note is two members: each socket's op is acknowledged on it and broadcast to the other, and concurrent ops between them transform like any two members'."
        ) { c async throws(ConformFailure) in
            let (note, _) = try await c.note("twice")
            let (s1, conf) = try await c.member(.member, note: note, name: "S1")
            let (s2, _) = try await c.member(.member, note: note, name: "S2")
            let op1 = Operation.replace(in: 5, at: 5, inserting: "1")
            let op2 = Operation.replace(in: 5, at: 5, inserting: "2")
            let sent1 = s1.send(op1, rev: conf.revision)
            _ = try await s1.takeOp(sent1.messageId)
            let sent2 = s2.send(op2, rev: conf.revision)
            let ack2 = try await s2.takeOpOrError(sent2.messageId)
            let oracle = try! Operation.transform(op2, op1).aPrime
            try c.expect(ack2 == oracle, "the second socket's concurrent op must apply as \(oracle); got \(ack2)")
            let seen1 = try await s1.takeOp(sent2.messageId)
            let seen2 = try await s2.takeOp(sent1.messageId)
            try c.expect(
                seen1 == oracle && seen2 == op1,
                "each socket must receive the other's op as applied; S1 got \(seen1), S2 got \(seen2)")
            try c.expect(
                s1.opMessageIds == s2.opMessageIds,
                "both sockets must see one order; S1 saw \(s1.opMessageIds), S2 saw \(s2.opMessageIds)")
            let final = try await c.read(note)
            try c.expect(
                final.initialState == "twice21",
                "the note must read \"twice21\"; a fresh join reads \(quoted(final.initialState ?? "nil"))")
        },
        ConformCase(
            "sessions.slow-reader-no-silent-gap",
            "A member that stops reading (a 4 KB receive buffer, reads paused) while another writes megabytes of ops gets every op in order once it reads again, or is disconnected; never a silent gap.",
            requires: [.protocol2], suspects: [.serverDropsSlowClient]
        ) { c async throws(ConformFailure) in
            // Protocol 2 only: the original's 512-byte messages cannot fill a socket's buffers in the seconds a case may take.
            let note = try await c.freshAccount()
            let (w, conf) = try await c.member(.member, note: note, name: "W")
            // The slow reader: a small kernel receive buffer, and it stops reading once joined.
            let s = NoteClient(
                socket: try await c.socket(.colleague, pool: note, name: "S", receiveBufferBytes: 4096),
                resourceId: note, version: c.version, tag: "\(c.caseId)-S")
            _ = try await s.join()
            s.socket.pauseReading()
            let size = max(1000, c.target.maxMessageBytes - 2048)
            let count = max(20, c.target.slowReaderBytes / size)
            var length = 0, ids: [String] = []
            for i in 0..<count {
                let letter = Character(UnicodeScalar(UInt8(97 + i % 26)))
                let op = Operation.replace(
                    in: length, at: 0, deleting: length, inserting: String(repeating: letter, count: size))
                ids.append(w.send(op, rev: conf.revision + i).messageId)
                length = size
                if i % 40 == 39 { _ = try await w.takeOp(ids[i], within: .seconds(30)) }
            }
            _ = try await w.takeOp(ids[count - 1], within: .seconds(30))
            s.socket.resumeReading()
            let lastId = ids[count - 1]
            // Read until the last op arrives, or nothing has arrived for a second (a gap's end).
            var last: ServerEnvelope?, seenCount = -1
            while last == nil, s.socket.log.count != seenCount {
                seenCount = s.socket.log.count
                last = await s.socket.take(within: .seconds(1)) {
                    $0.messageId == lastId && $0.message.typeName == "docChangeReturnOps"
                }
            }
            let seen = s.opMessageIds
            // Disconnected: allowed, it resyncs.
            if last == nil, await s.socket.closeCode(within: .milliseconds(100)).ended { return }
            let missing = ids.filter { !seen.contains($0) }
            try c.expect(
                seen == ids,
                "the slow member must get all \(count) ops in order once it reads again (or be disconnected); it got \(seen.count), \(missing.count) missing (first missing: \(missing.first ?? "-")), and its socket is still open"
            )
        },
    ]
}
