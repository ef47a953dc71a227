import Foundation

/// Hands the heap's free pages back to the system: glibc's `malloc_trim(0)`, which no Swift module
/// exports (it is declared in <malloc.h>), so it is looked up at run time. Elsewhere it does nothing.
///
/// Why a load tool calls it: glibc keeps freed pages in its arenas, so a long run's RSS creeps up
/// with what its transient buffers once took. Trimming returns every wholly free page; it cannot
/// return a page that still holds one live object, which is what a restart's reconnect storm
/// leaves behind (docs/decisions/0035-heap-trimmed-every-ten-seconds.md).
public enum FreedHeap {
    private typealias MallocTrim = @convention(c) (Int) -> Int32

    private static let trim = glibc("malloc_trim", as: MallocTrim.self)

    /// A glibc function no Swift module exports, looked up at run time; nil elsewhere.
    private static func glibc<F>(_ name: String, as type: F.Type) -> F? {
        #if canImport(Glibc)
            guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, name) else { return nil }
            return unsafeBitCast(symbol, to: type)
        #else
            return nil
        #endif
    }

    private typealias MallocStats = @convention(c) () -> Void

    private static let stats = glibc("malloc_stats", as: MallocStats.self)

    /// Prints glibc's per-arena figures (bytes taken from the system, bytes in use) to standard
    /// error: what tells live memory from fragmentation when RSS grows.
    public static func printStatistics() { stats?() }

    private typealias MallOpt = @convention(c) (Int32, Int32) -> Int32

    private static let mallopt = glibc("mallopt", as: MallOpt.self)

    /// glibc's `M_ARENA_MAX`: how many heaps (arenas) threads may spread over.
    private static let arenaMax: Int32 = -8

    /// Caps glibc's arenas at `count` (by default up to eight per core); true when glibc took it.
    /// Call it before the threads that allocate start: a thread keeps the arena it first got.
    ///
    /// Why the load runner takes one: its event loops, the curl thread and Dispatch's threads
    /// each took an arena of their own, and what one thread's arena holds free no other thread
    /// can use, so a server restart's burst (a thousand sockets and page refetches at once) grew
    /// whichever arena took it and left that arena's free pages pinned by the long-lived objects
    /// made amid it. With one arena the soak's cut sat 4 MB lower and its restart peaks 4 to 7 MB
    /// lower, at the same CPU per op in `bench run`
    /// (docs/decisions/0042-one-heap-arena-trim-every-two-seconds.md).
    @discardableResult
    public static func limitArenas(to count: Int) -> Bool {
        guard let mallopt, count > 0 else { return false }
        return mallopt(arenaMax, Int32(clamping: count)) == 1
    }

    /// Returns free heap pages to the system; true when some memory was released.
    @discardableResult
    public static func returnToSystem() -> Bool {
        guard let trim else { return false }
        return trim(0) != 0
    }
}

/// Trims the heap every `every` while a run loads, on a queue of its own: a trim walks the whole
/// heap (1.3 ms at the median, 32.9 ms at most in the soak, at about 200 MB), and on one of the
/// event loops it would stall that loop's sockets and users. Set `WHALESIM_TRIM_LOG=1` to print how long each took, `2` to add glibc's per-arena statistics. (Sendable by hand:
/// the timer is resumed in `init` and cancelled in `stop`, both thread-safe.)
final class HeapTrimmer: @unchecked Sendable {
    private let timer: any DispatchSourceTimer

    /// Every 2 s: a restart's burst is freed within a second or two of its peak, and at 10 s its
    /// free pages stayed resident for up to 10 s after it (the soak's RSS samples caught them as
    /// the restart's peak). A trim at the soak's heap size takes about a millisecond.
    init(every: DispatchTimeInterval = .seconds(2)) {
        let level = ProcessInfo.processInfo.environment["WHALESIM_TRIM_LOG"] ?? ""
        let log = level == "1" || level == "2"
        let arenas = level == "2"
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "whalesim.heap-trim"))
        timer.schedule(deadline: .now() + every, repeating: every)
        timer.setEventHandler {
            let start = DispatchTime.now().uptimeNanoseconds
            let released = FreedHeap.returnToSystem()
            if log {
                let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                FileHandle.standardError.write(
                    Data("heap trim: \(String(format: "%.1f", ms)) ms, released \(released)\n".utf8))
            }
            if arenas { FreedHeap.printStatistics() }
        }
        timer.resume()
    }

    func stop() { timer.cancel() }
}
