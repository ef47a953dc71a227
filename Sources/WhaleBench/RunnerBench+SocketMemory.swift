import Foundation
import WhaleEmbedded
import WhaleLoad

extension RunnerBench {
    /// 0. Memory per connection: the lean NIO client against hummingbird-websocket's.
    func measureSocketMemory() async throws {
        let raw = try ChildServer(["bench", "raw-server", "--mode", "echo"])
        defer { raw.stop() }
        for kind in ["lean", "hummingbird"] {
            let before = residentBytes() ?? 0
            var lean: [LeanSocket] = [], hb: [LiveSocket] = []
            for i in 0..<options.socketMemory {
                if kind == "lean" {
                    let s = LeanSocket(url: raw.socketURL, onText: { _ in })
                    lean.append(s)
                    if i % 200 == 199 { _ = await s.connected(timeout: .seconds(10)) }
                } else {
                    let s = LiveSocket(url: raw.socketURL) { _ in }
                    hb.append(s)
                    if i % 200 == 199 { _ = await s.connected(timeout: .seconds(10)) }
                }
            }
            var open = 0
            for s in lean where await s.connected(timeout: .seconds(10)) { open += 1 }
            for s in hb where await s.connected(timeout: .seconds(10)) { open += 1 }
            for s in lean { s.send("ping") }
            for s in hb { s.send("ping") }
            try await Task.sleep(for: .seconds(1))
            let after = residentBytes() ?? 0
            output(
                String(
                    format: "socket memory, %@ client: %d open, %.1f KB per connection", kind, open,
                    Double(after - before) / Double(max(1, open)) / 1024))
            for s in lean { await s.close() }
            for s in hb { await s.close() }
        }
    }
}
