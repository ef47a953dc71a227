import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The process's limit on open files (`RLIMIT_NOFILE`), which a load runner of a thousand sockets
/// outgrows on most machines: Debian, Ubuntu and Fedora start a login shell at a soft limit of
/// 1,024, with a hard limit hundreds of times higher.
///
/// Measured (docs/decisions/0044-runs-on-other-peoples-machines.md): the README's demo (300 clients, 30 notes) held 442
/// descriptors in the runner and 422 in the embedded server; the soak's first 75 s (1,000 clients,
/// 100 notes) 1,234 and 1,220. At the limit, a socket the runner cannot open became a client that
/// never caught up (the liveness checker said `invalid`, a false alarm), and libdispatch, which
/// opens `/proc` files to watch its threads, crashed the process with SIGILL.
public enum OpenFiles {
    /// The soft and hard limits now; `nil` where the platform will not say.
    public static func limits() -> (soft: Int, hard: Int)? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return (clamp(limit.rlim_cur), clamp(limit.rlim_max))
    }

    /// Raises the soft limit to the hard one (what any process may do), once at start, so that the
    /// runner and the servers it starts (children inherit it) can hold what a big run opens.
    /// Returns the soft limit after.
    @discardableResult
    public static func raiseSoftLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        // An unlimited hard limit is refused as a soft one: the kernel's cap (fs.nr_open) is the most.
        for target in [limit.rlim_max, min(limit.rlim_max, kernelCap)] where limit.rlim_cur < target {
            var raised = limit
            raised.rlim_cur = target
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return clamp(target) }
        }
        return clamp(limit.rlim_cur)
    }

    /// What a live run of `clients` virtual clients in `documents` notes may hold open at once in
    /// one process: a note socket and, at a restart's storm, a page's HTTP connection per client,
    /// a recorder per note, and a margin for the process's own files, listeners and helpers.
    /// About twice what the measured runs peaked at, since a restart's storm opens the new
    /// sockets while the old ones are still closing. With `storms: false` (a load with no
    /// restart, drop or fault, as `bench run`'s phases are): a socket per client, the page
    /// connections the runner's HTTP pool keeps (`clients / 16`, at least 64), the same rest.
    public static func needed(clients: Int, documents: Int, storms: Bool = true) -> Int {
        storms ? 2 * clients + 2 * documents + 256 : clients + max(64, clients / 16) + 2 * documents + 256
    }

    /// Why a run of this size cannot start under the current limit, or `nil` when it fits.
    public static func shortfall(clients: Int, documents: Int, storms: Bool = true) -> String? {
        guard let (soft, hard) = limits() else { return nil }
        let want = needed(clients: clients, documents: documents, storms: storms)
        guard soft < want else { return nil }
        let raise =
            hard >= want
            ? "raise it with `ulimit -n \(want)` (the hard limit here is \(hard))"
            : "the hard limit is \(hard): raise it (as root, or in /etc/security/limits.conf) to at least \(want), or run fewer clients"
        return
            "this run needs about \(want) open files (\(clients) clients in \(documents) notes\(storms ? ", and a restart's redials" : "")), but this process may open only \(soft): \(raise)"
    }

    /// Whether the process is out of descriptors right now: a socket that failed to open then is
    /// whalesim's failure, not the server's. Costs a `dup` and a `close`.
    public static func exhausted() -> Bool {
        let fd = dup(STDERR_FILENO)
        if fd >= 0 {
            close(fd)
            return false
        }
        return errno == EMFILE || errno == ENFILE
    }

    /// `/proc/sys/fs/nr_open`, or Linux's default of 1,048,576 when it cannot be read.
    private static var kernelCap: rlim_t {
        let text = try? String(contentsOfFile: "/proc/sys/fs/nr_open", encoding: .utf8)
        return text.flatMap { rlim_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 1 << 20
    }

    private static func clamp(_ value: rlim_t) -> Int {
        value > rlim_t(Int.max) ? Int.max : Int(value)  // RLIM_INFINITY is all ones
    }
}
