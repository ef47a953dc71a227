import Foundation
import NIOConcurrencyHelpers

/// Batches writes from every document shard and request into as few transactions as possible:
/// callers enqueue (cheap, synchronous, keeps their order) and get a ticket; one writer thread
/// commits everything pending in one transaction, then marks every ticket up to it durable. So an
/// fsync is shared by all ops that arrived while the previous one ran, and durability does not
/// cost throughput (docs/decisions/0007-reference-server-shards-group-commit-refusals.md has the figures).
///
/// ```swift
/// let committer = GroupCommitter(storage: storage)
/// let ticket = committer.enqueue(StorageBatch(noteEntries: [entry]))
/// try await committer.waitDurable(ticket)   // now the op may be acknowledged
/// ```
public final class GroupCommitter: Sendable {
    /// A position in the commit order; durable once the writer has committed up to it.
    public typealias Ticket = UInt64

    private struct State {
        var pending = StorageBatch()
        var lastEnqueued: Ticket = 0
        var durable: Ticket = 0
        var waiters: [(ticket: Ticket, continuation: CheckedContinuation<Void, any Error>)] = []
        var failure: (any Error)?
        var stopped = false
        var batches = 0
        var listeners: [@Sendable (Result<Void, any Error>) -> Void] = []
    }

    private let storage: any ServerStorage
    private let state = NIOLockedValueBox(State())
    private let wakeup = NSCondition()

    /// With `commitInterval` > 0 the writer waits that long before taking what is pending: the
    /// `ack-before-durable` fault's server, where nothing waits for a commit, commits on a timer
    /// as such servers do (a journal commit interval), which is its window of loss.
    private let commitInterval: TimeInterval

    public init(storage: any ServerStorage, commitInterval: Duration = .zero) {
        self.storage = storage
        self.commitInterval =
            Double(commitInterval.components.seconds) + Double(commitInterval.components.attoseconds) / 1e18
        let thread = Thread { [self] in self.run() }
        thread.name = "whalesim-group-commit"
        thread.start()
    }

    /// Queues a write; the returned ticket is durable once ``waitDurable(_:)`` returns.
    @discardableResult
    public func enqueue(_ batch: StorageBatch) -> Ticket {
        guard !batch.isEmpty else { return state.withLockedValue { $0.lastEnqueued } }
        let ticket = state.withLockedValue { state -> Ticket in
            state.pending.append(batch)
            state.lastEnqueued += 1
            return state.lastEnqueued
        }
        signalWriter()
        return ticket
    }

    /// Returns once `ticket` is committed; throws if the storage failed (nothing after a failed
    /// write is ever reported durable).
    public func waitDurable(_ ticket: Ticket) async throws {
        let ready: Result<Bool, any Error> = state.withLockedValue { state in
            if let failure = state.failure { return .failure(failure) }
            return .success(state.durable >= ticket)
        }
        if try ready.get() { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let immediate: Result<Void, any Error>? = state.withLockedValue { state in
                if let failure = state.failure { return .failure(failure) }
                if state.durable >= ticket { return .success(()) }
                state.waiters.append((ticket, continuation))
                return nil
            }
            if let immediate { continuation.resume(with: immediate) }
        }
    }

    /// Enqueues and waits: for writes that are not on a hot path (logins, model mutations).
    public func commit(_ batch: StorageBatch) async throws {
        try await waitDurable(enqueue(batch))
    }

    /// Everything up to this ticket is committed.
    public var durableTicket: Ticket { state.withLockedValue { $0.durable } }

    /// Runs `body` on the writer's thread after every commit, before the commit's waiters are
    /// resumed, with no lock held: the note shards deliver what the commit made durable from here.
    /// It gets the failure once, when the storage fails (nothing is durable after that).
    public func onCommit(_ body: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        state.withLockedValue { $0.listeners.append(body) }
    }

    /// How many transactions the writer has committed (the benchmark reports ops per commit).
    public var batchesCommitted: Int { state.withLockedValue { $0.batches } }

    /// Commits what is pending, then stops the writer thread.
    public func stop() async {
        let last = state.withLockedValue { $0.lastEnqueued }
        try? await waitDurable(last)
        state.withLockedValue { $0.stopped = true }
        signalWriter()
    }

    private func signalWriter() {
        wakeup.lock()
        wakeup.signal()
        wakeup.unlock()
    }

    private func run() {
        while true {
            wakeup.lock()
            var taken: (StorageBatch, Ticket)?
            while true {
                let (batch, ticket, stop) = state.withLockedValue { state -> (StorageBatch?, Ticket, Bool) in
                    if state.pending.isEmpty { return (nil, 0, state.stopped) }
                    let batch = state.pending
                    state.pending = StorageBatch()
                    return (batch, state.lastEnqueued, false)
                }
                if let batch { taken = (batch, ticket); break }
                if stop { wakeup.unlock(); return }
                wakeup.wait()
            }
            wakeup.unlock()
            guard var (batch, ticket) = taken else { continue }
            if commitInterval > 0 {
                Thread.sleep(forTimeInterval: commitInterval)
                // Everything that arrived meanwhile goes into the same commit.
                state.withLockedValue { state in
                    if !state.pending.isEmpty {
                        batch.append(state.pending)
                        state.pending = StorageBatch()
                        ticket = state.lastEnqueued
                    }
                }
            }
            var result: Result<Void, any Error> = .success(())
            do { try storage.write(batch) } catch { result = .failure(error) }
            let (listeners, outcome) = state.withLockedValue {
                state -> ([@Sendable (Result<Void, any Error>) -> Void], Result<Void, any Error>?) in
                if state.failure != nil { return ([], nil) }
                switch result {
                case .success: state.durable = ticket; state.batches += 1
                case .failure(let error): state.failure = error
                }
                return (state.listeners, result)
            }
            if let outcome { for listener in listeners { listener(outcome) } }
            let ready = state.withLockedValue { state -> [CheckedContinuation<Void, any Error>] in
                let failed = state.failure != nil
                let ready = state.waiters.filter { failed || $0.ticket <= state.durable }.map(\.continuation)
                state.waiters.removeAll { failed || $0.ticket <= state.durable }
                return ready
            }
            for continuation in ready {
                if case .failure(let error) = result {
                    continuation.resume(throwing: error)
                } else {
                    let failure = state.withLockedValue { $0.failure }
                    if let failure { continuation.resume(throwing: failure) } else { continuation.resume() }
                }
            }
        }
    }
}
