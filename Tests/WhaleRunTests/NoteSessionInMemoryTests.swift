import Foundation
import NIOConcurrencyHelpers
import Testing
import WhaleProtocol
@testable import WhaleRun
import WhaleSim

/// A ``NoteSession`` driven without a port: its sockets come from an ``InMemoryCollab`` whose
/// real ``CollabServer`` answers, and the test decides what the network loses. Each case is a
/// promise of the live runner: a reconnect resends and converges, a refused op is reported and
/// the note resynced from the server's text, a resync brings the ops made meanwhile.
@Suite struct NoteSessionInMemoryTests {
    static let note = "acc-1"

    /// What one test's sessions share: the hub, the recorder, the metrics.
    struct Rig {
        let hub: InMemoryCollab
        let recorder = LiveRecorder(
            clock: RunClock(), documentNames: [NoteSessionInMemoryTests.note], initialTexts: [""],
            protocolVersion: 2)
        let metrics = LiveMetrics(clock: RunClock(), spillDirectory: nil)
        let ops = OpRegistry()
        let connections = NIOLockedValueBox<[String: Int]>([:])

        init(initialText: String = "") {
            hub = InMemoryCollab(initialTexts: [NoteSessionInMemoryTests.note: initialText])
        }

        func session(_ index: Int, faults: FaultSet = []) -> NoteSession {
            let context = NoteSession.Context(
                socketURL: "ws://memory/ws", token: "user-\(index)", protocolVersion: .v2,
                recorder: recorder, metrics: metrics, ops: ops, faults: faults,
                connections: connections, runTag: "t", sockets: hub.sockets)
            return NoteSession(
                index: index, clientId: ClientID(String(format: "c%03d", index + 1)), userId: "user-\(index)",
                resourceId: NoteSessionInMemoryTests.note, document: 0, context: context)
        }

        /// Connects and pumps until the session has joined.
        func joined(_ index: Int, faults: FaultSet = []) async -> NoteSession {
            let s = session(index, faults: faults)
            await s.connect()
            _ = await eventually(step: hub.pump) { s.isSynchronized }
            return s
        }

        var events: [HistoryEvent] { recorder.history().entries.map(\.event) }
    }

    @Test func aReconnectResendsTheUnacknowledgedOpAndConverges() async throws {
        let rig = Rig()
        let a = await rig.joined(0)
        #expect(a.isSynchronized)
        a.edit(position: 0, deleting: 0, inserting: "hello")
        // The op reaches the server, its ack is lost with the connection.
        rig.hub.pumpUp()
        #expect(rig.hub.text(Self.note) == "hello")
        rig.hub.cut("c001")
        #expect(await eventually { !a.isJoined })
        // The socket manager redials by itself (100 ms), resyncs from its revision and resends.
        let back = await eventually(step: rig.hub.pump) { a.isSynchronized && a.session.outstanding == nil }
        #expect(back, "\(a.connectionSummary)")
        #expect(rig.hub.dials == 2)
        #expect(a.session.text == "hello")
        #expect(rig.hub.text(Self.note) == "hello", "applied once, not twice")
        #expect(a.revision == rig.hub.revision(Self.note))
        let events = rig.events
        #expect(events.contains { if case .disconnect(0, _) = $0 { true } else { false } })
        #expect(events.filter { if case .connect(0) = $0 { true } else { false } }.count == 2)
        #expect(events.contains { if case .ack(0, _, 1) = $0 { true } else { false } })
        #expect(!events.contains { if case .failed = $0 { true } else { false } })
    }

    @Test func aRefusedOpIsReportedAndTheNoteResyncedFromTheServer() async throws {
        // Counting in UTF-8 bytes, the client's op does not fit the server's "é" (one scalar, two bytes).
        let rig = Rig(initialText: "é")
        let a = await rig.joined(0, faults: [.utf8LengthUnits])
        #expect(a.session.text == "é")
        a.edit(position: 1, deleting: 0, inserting: "x")
        #expect(a.session.text == "éx", "shown at once")
        let settled = await eventually(step: rig.hub.pump) { a.isSynchronized && a.session.outstanding == nil }
        #expect(settled)
        // Refused: reported as the live code does (dropped op, divergence), back to the server's text.
        let events = rig.events
        #expect(
            events.contains { if case .failed(0, _, let code) = $0 { code.hasPrefix("dropped") } else { false } },
            "\(events)")
        #expect(
            events.contains { if case .error(0, History.divergedCode, _) = $0 { true } else { false } }, "\(events)")
        #expect(!events.contains { if case .ack(0, _, _) = $0 { true } else { false } })
        #expect(a.session.text == "é")
        #expect(rig.hub.text(Self.note) == "é")
        #expect(rig.metrics.errorSeriesTotal("failed:dropped") == 1)
    }

    @Test func aResyncBringsTheOpsMadeWhileAway() async throws {
        let rig = Rig()
        let a = await rig.joined(0)
        let b = await rig.joined(1)
        // A's connection goes and the server is away for a while; B keeps typing.
        rig.hub.refusesConnections = true
        rig.hub.cut("c001")
        #expect(await eventually { !a.isJoined })
        b.edit(position: 0, deleting: 0, inserting: "abc")
        rig.hub.pump()
        #expect(b.session.outstanding == nil)
        // A types while away: an op kept for the resync (a full state would have to drop it).
        a.edit(position: 0, deleting: 0, inserting: "Z")
        #expect(a.session.text == "Z")
        rig.hub.refusesConnections = false
        let back = await eventually(10, step: rig.hub.pump) {
            a.isSynchronized && a.session.outstanding == nil && a.revision == rig.hub.revision(Self.note)
        }
        #expect(back, "\(a.connectionSummary)")
        #expect(rig.hub.text(Self.note) == "Zabc")
        #expect(a.session.text == "Zabc")
        #expect(b.session.text == "Zabc")
        #expect(!rig.events.contains { if case .failed = $0 { true } else { false } }, "\(rig.events)")
    }
}
