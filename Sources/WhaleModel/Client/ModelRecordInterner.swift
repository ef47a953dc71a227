import Foundation

/// Lets the many model pages of one process hold one copy of a record they all received.
///
/// A record update reaches every page of its pool: in a live run, ten pages of an account decode
/// the same task or assignment entry from ten sockets, and each kept its own copy (the box, every
/// string, and the key) for as long as it showed the record. An account's assignment history only
/// grows, so those copies were the runner's steady growth through a long load (issue 21). A page
/// that interns what it decodes gets the copy another page already holds when the two are equal,
/// so the record's storage and its key are shared, and each further page costs only its
/// dictionary slots.
///
/// Interning changes no value, only where the bytes live, so a page with an interner behaves
/// exactly as one without (the simulator's pages have none). The table keeps the newest version
/// of each key in two generations: when the current one reaches `generationSize` entries it
/// becomes the previous one and the old previous is dropped, so the table holds at most twice
/// `generationSize` records however long the run, and a record nobody has received for two
/// generations is forgotten here (the pages keep theirs). What sharing needs is that pages
/// decoding one update within moments of each other find it; two generations of a few
/// thousand records cover that many times over.
///
/// ```swift
/// let interner = ModelRecordInterner()
/// let (key, record) = interner.intern(decoded)   // the copy already held, when equal
/// ```
public final class ModelRecordInterner: @unchecked Sendable {
    private struct Entry {
        let key: String
        let record: ModelRecord
    }

    private let lock = NSLock()
    private var current: [String: Entry] = [:]
    private var previous: [String: Entry] = [:]
    private var hits = 0
    private var misses = 0

    /// Records in the current generation before it is retired.
    public let generationSize: Int

    public init(generationSize: Int = 4_096) {
        self.generationSize = Swift.max(1, generationSize)
    }

    /// The record's key and the record, shared with an equal one interned before when there
    /// is one; otherwise `record` itself, which later equal records will share.
    public func intern(_ record: ModelRecord) -> (key: String, record: ModelRecord) {
        let key = record.key
        lock.lock()
        defer { lock.unlock() }
        if let entry = current[key], entry.record == record {
            hits += 1
            return (entry.key, entry.record)
        }
        if let entry = previous[key], entry.record == record {
            hits += 1
            current[entry.key] = entry
            return (entry.key, entry.record)
        }
        misses += 1
        if current.count >= generationSize {
            previous = current
            current = [:]
            current.reserveCapacity(generationSize)
        }
        current[key] = Entry(key: key, record: record)
        return (key, record)
    }

    /// Records held now (both generations; a key in both counts twice).
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return current.count + previous.count
    }

    /// Lookups that found an equal record, and lookups that did not.
    public var counts: (hits: Int, misses: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (hits, misses)
    }
}
