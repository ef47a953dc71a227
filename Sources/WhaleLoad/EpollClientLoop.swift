import Foundation
#if canImport(Glibc)
    import CEpoll
    import Glibc

    /// What an ``EpollClientLoop`` tells the owner of a socket, always on the loop's own thread.
    public protocol EpollClientHandler: AnyObject {
        /// The websocket upgrade was answered `101` with the right accept key: the socket can send.
        func opened(_ socket: EpollClientSocket)
        /// One whole text or binary message (fragments joined), in the loop's buffers: valid only
        /// during the call.
        func received(_ socket: EpollClientSocket, _ payload: UnsafeRawBufferPointer)
        /// The timer set with ``EpollClientSocket/schedule(afterMs:)`` is due.
        func timerFired(_ socket: EpollClientSocket)
        /// The socket is closed: refused, reset, a bad answer, a close frame (`reason` says which).
        /// The last call the socket makes.
        func closed(_ socket: EpollClientSocket, reason: String)
        /// A pong came (the answer to ``EpollClientSocket/ping()``).
        func ponged(_ socket: EpollClientSocket)
        /// The server's close frame, with its code and reason; `closed` follows at once.
        func closing(_ socket: EpollClientSocket, code: Int?, reason: String?)
    }

    extension EpollClientHandler {
        public func timerFired(_ socket: EpollClientSocket) {}
        public func ponged(_ socket: EpollClientSocket) {}
        public func closing(_ socket: EpollClientSocket, code: Int?, reason: String?) {}
    }

    /// Websocket clients on plain system calls: one thread, one epoll set, non-blocking sockets,
    /// frames parsed where they lie in each socket's read buffer, masked frames written straight
    /// from the caller. No NIO channel, pipeline or promise on the way. It is also a Swift
    /// `TaskExecutor`: a task started with it as its executor preference runs on the loop's thread,
    /// so a virtual user's pause (``schedule(atUptimeNs:_:)``), its edit and the frame it sends, and
    /// the frames it receives all happen on one thread with no hop between threads.
    ///
    /// Why it exists: at 2,000 ops/s offered the runner's sockets on NIO cost about 0.45 of a core,
    /// most of it NIO's channels and the wake-ups of a thousand timers
    /// (docs/decisions/0046-runner-on-epoll-loops.md); `bench run --floor` also uses it as the yardstick of
    /// what the kernel's work per frame costs.
    ///
    /// What it does of RFC 6455: the upgrade with its accept key checked, masked client frames,
    /// fragments joined, pings answered, pongs counted, a server's close frame answered, a stream that
    /// breaks the RFC closed with 1002 (1009 for a message over the socket's limit). `ws://` only.
    /// Its thread runs until ``stop()``; the shared loops (``shared(_:)``) run for the process.
    public final class EpollClientLoop: @unchecked Sendable {
        enum Work {
            case closure(() -> Void)
            case job(UnownedJob)
        }

        let epoll: Int32
        let wake: Int32
        let handler: (any EpollClientHandler)?
        private let name: String
        /// Open sockets by file descriptor (a descriptor is a small number: an array, not a hash).
        var sockets: [EpollClientSocket?] = []
        var timers = TimerHeap()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var mask: UInt32 = 0x9E37_79B9
        /// Addresses of host names already looked up (the loop's thread only).
        var resolved: [String: [UInt8]] = [:]
        private let queue = NSLock()
        private var queued: [Work] = []
        /// An eventfd write is on its way: later submitters from other threads need not write again.
        private var wakePending = false
        private var running: [Work] = []
        private var stopping = false
        private var thread: Thread?
        private var threadID: pthread_t?
        private let done = DispatchSemaphore(value: 0)
        /// Whether `epoll_pwait2` (nanosecond timeouts, Linux 5.11) works here; else milliseconds.
        private var preciseWait = true
        /// This loop's number in the process (0, 1, ... in the order loops were made): what
        /// ``currentOrdinal`` gives on its thread, so per-loop state can live in a plain array.
        public let ordinal: Int

        /// Starts the loop's thread; `handler` hears about the sockets opened without one of their own.
        public init(name: String, handler: (any EpollClientHandler)? = nil) {
            self.name = name
            self.handler = handler
            ordinal = Self.nextOrdinal()
            epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
            wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
            var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wake))
            _ = epoll_ctl(epoll, EPOLL_CTL_ADD, wake, &event)
            let thread = Thread { [unowned self] in self.run() }
            thread.name = name
            self.thread = thread
            thread.start()
        }

        private static let sharedLoops = NSLock()
        nonisolated(unsafe) private static var sharedList: [EpollClientLoop] = []
        /// Its own lock: `shared(_:)` makes loops while it holds `sharedLoops`.
        private static let ordinalLock = NSLock()
        nonisolated(unsafe) private static var ordinals = 0

        private static func nextOrdinal() -> Int {
            ordinalLock.lock()
            defer { ordinalLock.unlock() }
            ordinals += 1
            return ordinals - 1
        }

        /// The thread's loop ordinal plus one (no value: not a loop's thread).
        private static let ordinalKey: pthread_key_t = {
            var key = pthread_key_t()
            pthread_key_create(&key, nil)
            return key
        }()

        /// The ``ordinal`` of the loop whose thread calls this; nil on any other thread. A
        /// thread-local read: cheap enough for every sample a virtual user takes.
        public static var currentOrdinal: Int? {
            guard let p = pthread_getspecific(ordinalKey) else { return nil }
            return Int(bitPattern: p) - 1
        }

        /// The process's loops for virtual users (made on first use, never stopped, like NIO's
        /// singleton group): at least `count` of them.
        public static func shared(_ count: Int) -> [EpollClientLoop] {
            sharedLoops.lock()
            defer { sharedLoops.unlock() }
            while sharedList.count < max(1, count) {
                sharedList.append(EpollClientLoop(name: "whale-users-\(sharedList.count)"))
            }
            return Array(sharedList.prefix(max(1, count)))
        }

        /// True on the loop's own thread.
        public var inLoop: Bool {
            guard let threadID else { return false }
            return pthread_equal(pthread_self(), threadID) != 0
        }

        /// Runs `work` on the loop's thread, after what is already queued (never inside the caller).
        public func execute(_ work: @escaping () -> Void) { submit(.closure(work)) }

        private func submit(_ work: Work) {
            queue.lock()
            queued.append(work)
            // On the loop's thread nothing sleeps: the loop looks at the queue before it waits.
            let poke = !wakePending && !inLoop
            if poke { wakePending = true }
            queue.unlock()
            if poke {
                var one: UInt64 = 1
                _ = Glibc.write(wake, &one, 8)
            }
        }

        /// Calls `fire` on the loop's thread once the monotonic clock reaches `uptimeNs` (the clock of
        /// `NIODeadline` and `DispatchTime`). There is no cancelling: a caller that no longer cares
        /// checks its own state when it fires.
        public func schedule(atUptimeNs due: UInt64, _ fire: @escaping () -> Void) {
            if inLoop {
                timers.push(due: due, .callback(fire))
            } else {
                execute { [self] in timers.push(due: due, .callback(fire)) }
            }
        }

        /// Opens a websocket to `host:port` at `path`, with `headers` on the upgrade; `handler`
        /// (else the loop's) hears `opened` or `closed`. `host`: an IPv4 or IPv6 address, or a name
        /// (looked up once per loop, blocking the loop that once).
        public func open(
            index: Int, host: String, port: Int, path: String, headers: [(String, String)],
            handler: (any EpollClientHandler)? = nil, maxFrameSize: Int = 1 << 20
        ) -> EpollClientSocket {
            let socket = EpollClientSocket(
                index: index, loop: self, host: host, port: port, path: path, headers: headers,
                maxFrameSize: maxFrameSize)
            socket.handler = handler ?? self.handler
            execute { [self] in connect(socket, host: host, port: port) }
            return socket
        }

        /// Closes every socket and ends the thread.
        public func stop() {
            execute { [self] in
                for case let socket? in sockets { drop(socket, reason: "the loop stopped") }
                stopping = true
            }
            done.wait()
            Glibc.close(epoll)
            Glibc.close(wake)
        }

        private func run() {
            threadID = pthread_self()
            pthread_setspecific(Self.ordinalKey, UnsafeRawPointer(bitPattern: ordinal + 1))
            // A thread inherits its creator's name on Linux (a NIO loop's, here): name it for `perf`
            // and `top -H` (at most 15 bytes).
            whalesim_name_thread(name)
            var events = [epoll_event](repeating: epoll_event(), count: 256)
            while true {
                runQueued()
                if stopping { done.signal(); return }
                queue.lock()
                let more = !queued.isEmpty
                queue.unlock()
                let waitNs: Int64 =
                    more
                    ? 0
                    : timers.next.map { due in
                        let now = Self.nowNs()
                        return due <= now ? 0 : Int64(min(due - now, 60_000_000_000))
                    } ?? -1
                let n = events.withUnsafeMutableBufferPointer { wait($0.baseAddress!, waitNs) }
                if n > 0 {
                    for i in 0..<Int(n) {
                        let fd = events[i].data.fd, flags = events[i].events
                        if fd == wake {
                            var count: UInt64 = 0
                            _ = Glibc.read(wake, &count, 8)
                            queue.lock()
                            wakePending = false
                            queue.unlock()
                            continue
                        }
                        guard Int(fd) < sockets.count, let socket = sockets[Int(fd)] else { continue }
                        if flags & EPOLLOUT.rawValue != 0 { flush(socket) }
                        if flags & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0, socket.fd == fd {
                            readable(socket)
                        }
                    }
                }
                let now = Self.nowNs()
                while let entry = timers.popDue(now) {
                    switch entry {
                    case .socket(let socket, let generation):
                        if socket.fd >= 0, socket.timerGeneration == generation { socket.handler?.timerFired(socket) }
                    case .callback(let fire):
                        fire()
                    }
                }
            }
        }

        /// Waits for events at most `ns` (-1: until one comes).
        private func wait(_ events: UnsafeMutablePointer<epoll_event>, _ ns: Int64) -> Int32 {
            if preciseWait, ns > 0 {
                // A pause of a virtual user ends on its own microsecond, not on the next whole
                // millisecond: epoll_wait's unit would wake each up to a millisecond late (counted as
                // the runner's lag) and bunch their edits on a 1 ms grid nobody asked for.
                var t = timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
                let n = epoll_pwait2(epoll, events, 256, &t, nil)
                if n >= 0 || errno != ENOSYS { return n }
                preciseWait = false
            }
            let ms = ns < 0 ? Int32(-1) : Int32((ns + 999_999) / 1_000_000)
            return epoll_wait(epoll, events, 256, ms)
        }

        /// Runs what was queued, jobs and closures in the order they came; what they queue in turn
        /// waits for the next round (after the sockets have been read).
        private func runQueued() {
            queue.lock()
            swap(&running, &queued)
            queue.unlock()
            guard !running.isEmpty else { return }
            let executor = asUnownedTaskExecutor()
            for work in running {
                switch work {
                case .closure(let c): c()
                case .job(let job): job.runSynchronously(on: executor)
                }
            }
            running.removeAll(keepingCapacity: true)
        }

        static func nowNs() -> UInt64 {
            var t = timespec()
            clock_gettime(CLOCK_MONOTONIC, &t)
            return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
        }

        /// The loop's timers: a binary min-heap by due time (ties in the order they were set). A
        /// socket's later `schedule` bumps its generation, so an older entry is skipped when due.
        struct TimerHeap {
            enum Entry {
                case socket(EpollClientSocket, Int)
                case callback(() -> Void)
            }
            private var items: [(due: UInt64, order: UInt64, entry: Entry)] = []
            private var count: UInt64 = 0
            var next: UInt64? { items.first?.due }

            private static func before(
                _ a: (due: UInt64, order: UInt64, entry: Entry), _ b: (due: UInt64, order: UInt64, entry: Entry)
            ) -> Bool {
                a.due < b.due || (a.due == b.due && a.order < b.order)
            }

            mutating func push(due: UInt64, _ entry: Entry) {
                count &+= 1
                items.append((due, count, entry))
                var i = items.count - 1
                while i > 0, Self.before(items[i], items[(i - 1) / 2]) { items.swapAt(i, (i - 1) / 2); i = (i - 1) / 2 }
            }

            mutating func popDue(_ now: UInt64) -> Entry? {
                guard let top = items.first, top.due <= now else { return nil }
                let last = items.removeLast()
                if !items.isEmpty {
                    items[0] = last
                    var i = 0
                    while true {
                        let l = 2 * i + 1, r = l + 1
                        var m = i
                        if l < items.count, Self.before(items[l], items[m]) { m = l }
                        if r < items.count, Self.before(items[r], items[m]) { m = r }
                        if m == i { break }
                        items.swapAt(i, m)
                        i = m
                    }
                }
                return top.entry
            }
        }
    }

    extension EpollClientLoop: TaskExecutor {
        /// A job of a task that prefers this loop (`Task(executorPreference: loop)`): run on its thread.
        public func enqueue(_ job: consuming ExecutorJob) {
            submit(.job(UnownedJob(job)))
        }
    }
#endif

#if !canImport(Glibc)
    /// Without epoll (not Linux) there are no loops of whalesim's own: ``shared(_:)`` gives none, so
    /// `live.runner-loop: epoll` runs on NIO's loops, and the run says how many epoll loops it had (0).
    public final class EpollClientLoop: TaskExecutor, @unchecked Sendable {
        private init() {}
        public static func shared(_ count: Int) -> [EpollClientLoop] { [] }
        public var inLoop: Bool { false }
        public var ordinal: Int { 0 }
        public static var currentOrdinal: Int? { nil }
        public func execute(_ work: @escaping () -> Void) { fatalError("no epoll loops on this platform") }
        public func schedule(atUptimeNs due: UInt64, _ fire: @escaping () -> Void) {
            fatalError("no epoll loops on this platform")
        }
        public func enqueue(_ job: consuming ExecutorJob) { fatalError("no epoll loops on this platform") }
    }

    /// Never made where there is no ``EpollClientLoop``.
    public final class EpollWebSocket: NoteSocket, @unchecked Sendable {
        public init(
            url: String, headers: [(String, String)] = [], maxFrameSize: Int = 1 << 20, loop: EpollClientLoop,
            onBuffer: @escaping @Sendable (UnsafeRawBufferPointer) -> Void
        ) { fatalError("no epoll loops on this platform") }
        public func connected(timeout: Duration) async -> Bool { false }
        public func send(_ text: String, binary: Bool) {}
        public func send(bytes: [UInt8], binary: Bool) {}
        public func ping() {}
        public var pongsReceived: Int { 0 }
        public var ending: LiveSocket.Ending? { nil }
        public func onEnded(_ then: @escaping @Sendable () -> Void) {}
        public func close() async {}
    }
#endif
