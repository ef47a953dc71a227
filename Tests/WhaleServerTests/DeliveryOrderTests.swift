import Dispatch
import Foundation
import NIOCore
import Testing
import WhaleOT
import WhaleProtocol
@testable import WhaleServer

/// Issue 21: frames leave a note in the order its state machine produced them, whichever thread
/// hands them over. When `serve` ran Swift concurrency on NIO's event loops, a delivery made on a
/// connection's own event loop was written at once, ahead of an earlier delivery still queued on
/// that loop, and every member on the loop received a revision before the one it follows.
@Suite(.serialized) struct DeliveryOrderTests {
    /// The smallest case: one frame handed over from another thread while the connection's event
    /// loop is busy (so it waits in the loop's queue), then the next one handed over on the loop.
    @Test func aFrameHandedOverOnTheEventLoopFollowsOneQueuedBeforeIt() async throws {
        let harness = try await ServerHarness.start()
        let server = harness.server
        let socket = TestSocket(url: harness.socketURL, headers: ["ObjectId": "x"])
        socket.send(#"{"messageId":"j","type":"resourceConnection","data":{"resourceId":"n"}}"#)
        _ = await socket.next { $0.messageId == "j" }
        let connection = try #require(server.registry.all.first)
        func envelope(_ id: String) -> ServerEnvelope {
            ServerEnvelope(senderId: server.serverId, messageId: id, message: .error(ProtocolError(.rateLimited, id)))
        }
        let rounds = 20
        for round in 0..<rounds {
            let first = envelope("\(round)a"), second = envelope("\(round)b")
            try await connection.channel.eventLoop.submit {
                let handedOver = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    server.deliver([(connection.id, first)])
                    handedOver.signal()
                }
                handedOver.wait()
                server.deliver([(connection.id, second)])
            }.get()
        }
        var order: [String] = []
        while order.count < 2 * rounds, let next = await socket.next(timeout: .seconds(5)) {
            if case .message(let envelope) = next { order.append(envelope.messageId) }
        }
        #expect(order == (0..<rounds).flatMap { ["\($0)a", "\($0)b"] })
        socket.close()
        await harness.stop()
    }

    /// Many senders on one note, their ops fed to the note's shard from jobs on the server's event
    /// loops (as the socket route does when the loops run Swift concurrency) and from Dispatch's
    /// pool: every member must get
    /// every op in revision order, so each op applies to its copy as it arrives. Waiting for
    /// commits, the group committer's thread delivers most ops and a loop's job only those whose
    /// commit ended just before it looked (a narrow window); with nothing to wait for
    /// (`ack-before-durable`), every job delivers what it made, from its own thread.
    @Test(arguments: [false, true])
    func concurrentSendersOnOneNoteReachEveryMemberInRevisionOrder(sendsWaitForNoCommit: Bool) async throws {
        let harness = try await ServerHarness.start { if sendsWaitForNoCommit { $0.faults = [.ackBeforeDurable] } }
        let server = harness.server
        // A few notes one after the other: each is one chance for the race.
        for attempt in 0..<4 {
            let note = "race-note-\(attempt)"
            var members: [TestSocket] = []
            for index in 0..<6 {
                let socket = TestSocket(url: harness.socketURL, headers: ["ObjectId": "x"])
                socket.send(#"{"messageId":"j\#(index)","type":"resourceConnection","data":{"resourceId":"\#(note)"}}"#)
                let conf = await socket.next { $0.messageId == "j\(index)" }
                guard case .resourceConnectionConf(let joined)? = conf?.message, joined.initialState ?? "" == "" else {
                    Issue.record("member \(index) did not join: \(String(describing: conf))")
                    return
                }
                members.append(socket)
            }
            var loops: [any EventLoop] = []
            for connection in server.registry.all where !loops.contains(where: { $0 === connection.channel.eventLoop })
            {
                loops.append(connection.channel.eventLoop)
            }
            let shard = server.router.shard(for: note)
            let senders = 8, opsPerSender = 100
            for sender in 0..<senders {
                let ghost = ClientID("sender\(attempt)-\(sender)")
                shard.handle(.connected(ghost, userId: "sender", protocolVersion: .original))
                shard.handle(
                    .received(
                        ghost,
                        ClientEnvelope(messageId: "j", message: .resourceConnection(resourceId: note, revision: nil))))
            }
            // Every op is its own job, all queued at once, on an event loop or (every third sender) on
            // Dispatch's pool: what another thread (the committer's, the pool's) hands to a loop waits
            // behind the jobs queued there, and each job's own pump may deliver meanwhile.
            let done = DispatchGroup()
            for op in 0..<opsPerSender {
                for sender in 0..<senders {
                    let ghost = ClientID("sender\(attempt)-\(sender)")
                    done.enter()
                    let job: @Sendable () -> Void = {
                        shard.handleLocked(
                            { state in
                                let document = state.documents[note]
                                let change = DocChange(
                                    resourceId: note, rev: document?.revision ?? 0,
                                    op: .replace(in: document?.document.count ?? 0, at: 0, inserting: "x"))
                                return state.handle(
                                    .received(
                                        ghost, ClientEnvelope(messageId: "\(sender)-\(op)", message: .docChange(change))
                                    ))
                            }, ticket: { _ in })
                        done.leave()
                    }
                    if sender % 3 == 2 {
                        DispatchQueue.global().async(execute: job)
                    } else {
                        loops[(op + sender) % loops.count].execute(job)
                    }
                }
            }
            await withCheckedContinuation { continuation in done.notify(queue: .global()) { continuation.resume() } }
            let expected = senders * opsPerSender
            for (index, member) in members.enumerated() {
                var text = "", received = 0
                var failure: String?
                while received < expected, let next = await member.next(timeout: .seconds(10)) {
                    guard case .message(let envelope) = next,
                        case .docChangeReturnOps(_, let op, _, _) = envelope.message
                    else { continue }
                    received += 1
                    do { text = try op.apply(to: text) } catch {
                        failure = failure ?? "op \(received) of \(expected) did not fit: \(error)"
                        text += "x"
                    }
                }
                #expect(received == expected, "member \(index) got \(received) of \(expected) ops")
                #expect(failure == nil, "member \(index): \(failure ?? "")")
            }
            #expect(server.note(note)?.revision == expected)
            for member in members { member.close() }
        }
        await harness.stop()
    }
}
