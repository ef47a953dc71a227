import Testing
import WhaleOT
import WhalesimTesting
@testable import WhaleProtocol

/// Random interleavings of edits, deliveries and reconnects with three protocol-2 clients: after
/// everything settles every client holds the server's text and every edit was acknowledged.
@Suite struct RandomScheduleTests {
    static let alphabet: [String] = ["a", "b", "é", "👍", "中", "e\u{301}", " "]

    @Test func everyInterleavingConverges() {
        for seed in UInt64(1)...1000 {
            var rng = SplitMix64(seed: seed)
            var pump = Pump(clients: 3, text: "start")
            for i in 0..<3 { pump.connect(i) }
            for _ in 0..<100 {
                let i = Int.random(in: 0..<3, using: &rng)
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<4:
                    let length = pump.clients[i].document.count
                    guard pump.clients[i].hasJoined else { continue }  // nothing to edit before the first state
                    let position = Int.random(in: 0...length, using: &rng)
                    let deleting = Int.random(in: 0...min(2, length - position), using: &rng)
                    let text = Bool.random(using: &rng) ? Self.alphabet.randomElement(using: &rng)! : ""
                    pump.edit(i, at: position, deleting: deleting, inserting: text)
                case 4..<6: pump.deliverToServer(i)
                case 6..<9: pump.deliverToClient(i)
                default:
                    if pump.connected[i] { pump.disconnect(i) } else { pump.connect(i) }
                }
            }
            for i in 0..<3 where !pump.connected[i] { pump.connect(i) }
            pump.settle()
            let server = pump.serverText
            #expect(pump.texts.allSatisfy { $0 == server }, "seed \(seed): \(pump.texts) vs server \(server)")
            #expect(pump.clients.allSatisfy { $0.syncState == .synchronized }, "seed \(seed)")
            let dropped = pump.clientActions.joined().contains { if case .opsDropped = $0 { true } else { false } }
            #expect(!dropped, "seed \(seed): an edit was dropped")
        }
    }
}
