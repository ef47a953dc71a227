import Foundation
import NIOCore

extension RunnerBench {
    /// 1c. The floor: the same frames on plain system calls, no NIO and no Swift task per
    /// socket. What it spends is the kernel's work per frame and little more: the least any
    /// client of this traffic can use here, whatever it is built on.
    /// `fullWindows`: the full virtual client's (protocol 2's latency runs). Off Linux, a
    /// ``BenchError`` (``floorNeedsLinux``).
    func measureFloor(against fullWindows: [RunnerCPUSampler.Window], in directory: URL) async throws {
        #if canImport(Glibc)
            // Then the same floor doing the virtual client's own work (its session: decode, OT,
            // cursors, encode): the floor with the session, against the floor, splits the full
            // client's overhead into its own work and everything else (NIO, tasks, the record).
            let clients = options.latencyClients
            var windows: [RunnerCPUSampler.Window] = [], sessionWindows: [RunnerCPUSampler.Window] = []
            let loops = NIOSingletons.groupLoopCountSuggestion
            for run in 1...options.runs {
                for session in [false, true] {
                    let server = try serve(directory, "floor-\(run)\(session ? "-session" : "")")
                    defer { server.stop() }
                    let (token, _, accounts) = try await BenchAccounts.signIn(
                        server, accounts: clients / options.noteSize)
                    let r = try await FloorNoteLoad.run(
                        url: server.socketURL, token: token, accounts: accounts, clients: clients,
                        noteSize: options.noteSize, thinkMs: Int(1000 / options.opsPerSecond),
                        seconds: options.seconds, loops: loops, session: session)
                    if session { sessionWindows.append(r.window) } else { windows.append(r.window) }
                    let kind = session ? "floor clients with the session" : "floor (epoll) clients"
                    output(
                        "  \(kind), run \(run): \(r.joined) of \(clients) joined; "
                            + Self.describe(r.window, runner: session ? "floor+session client" : "floor client"))
                }
            }
            let full = median(fullWindows.map(\.framesPerCPUSecond)),
                yardstick = median(windows.map(\.framesPerCPUSecond))
            output(
                String(
                    format:
                        "floor, plain epoll and system calls (median of %d): %.3f CPU s per 1,000 ops, %.0f frames per CPU-second, %.2f cores at %.0f ops/s on %d thread(s)",
                    windows.count, median(windows.map(\.cpuSecondsPer1000Ops)), yardstick,
                    median(windows.map(\.cores)), median(windows.map(\.opsPerSecond)), loops))
            output(
                String(
                    format:
                        "floor with the virtual client's session (median of %d): %.3f CPU s per 1,000 ops, %.0f frames per CPU-second, %.2f cores at %.0f ops/s on %d thread(s)",
                    sessionWindows.count, median(sessionWindows.map(\.cpuSecondsPer1000Ops)),
                    median(sessionWindows.map(\.framesPerCPUSecond)),
                    median(sessionWindows.map(\.cores)), median(sessionWindows.map(\.opsPerSecond)), loops))
            output(
                String(
                    format: "the full virtual client handles %.2f× the frames per CPU-second of the floor",
                    full / yardstick))
        #else
            throw BenchError(Self.floorNeedsLinux)
        #endif
    }
}
