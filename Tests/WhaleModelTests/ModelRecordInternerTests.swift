import Testing
import WhaleProtocol
@testable import WhaleModel

/// Pages of one process hold one copy of a record they all received (issue 21: ten pages of an
/// account each kept their own copy of every assignment entry, the runner's steady growth).
@Suite struct ModelRecordInternerTests {
    /// The address of a string's bytes (nil for a small string kept inline).
    func storage(_ s: String) -> UInt? {
        var s = s
        return s.withUTF8 { $0.count > 15 ? UInt(bitPattern: $0.baseAddress) : nil }
    }

    /// A record's own bits: for a boxed (indirect) record, the box it points to.
    func bits(_ r: ModelRecord) -> [UInt8] { withUnsafeBytes(of: r) { Array($0) } }

    /// The keys of the tasks and assignment entries the pages heard of over their sockets.
    func received(_ page: ModelClient) -> [String] {
        page.confirmed.compactMap { key, record in
            switch record {
            case .task(let t) where t.id.hasPrefix("t-interned-"): key
            case .assignment(let a) where a.targetId.hasPrefix("t-interned-"): key
            default: nil
            }
        }.sorted()
    }

    /// Ten pages of one account, joined; someone else creates tasks and reassigns them, and
    /// every page decodes each update from its own envelope, as each live page does from its socket.
    func tenPages(interner: ModelRecordInterner?) throws -> (ModelServer, [ModelClient]) {
        var server = try Fixture.server()
        var pages: [ModelClient] = []
        for i in 0..<10 {
            var page = ModelClient(clientId: ClientID("cp\(i)"), caller: Fixture.bo, page: .account("acc-acme-1"))
            page.interner = interner
            _ = server.handle(
                .joinPool(ClientID("cp\(i)"), poolId: "acc-acme-1", caller: Fixture.bo, protocolVersion: .v2))
            page.answerAll(page.handle(.joined), server)
            pages.append(page)
        }
        for i in 0..<30 {
            let task = TaskItem(
                id: "t-interned-\(i)", associatedTo: "acc-acme-1", description: "call back about the renewal \(i)",
                done: false, type: .call)
            var mutations = [
                Mutation.saveTask(task),
                .createAssignment(
                    kind: .task, targetId: task.id, assignedBy: "u-ann", assignedTo: i % 2 == 0 ? "u-bo" : "u-ann"),
            ]
            if i % 3 == 0 { var done = task; done.done = true; mutations.append(.saveTask(done)) }
            for (n, m) in mutations.enumerated() {
                let actions = server.handle(.mutate(requestId: "o\(i).\(n)", caller: Fixture.ann, senderID: "cq", m))
                for (client, e) in actions.sends {
                    guard let k = pages.firstIndex(where: { $0.clientId == client }) else { continue }
                    pages[k].answerAll(pages[k].handle(.received(e)), server)
                }
            }
        }
        return (server, pages)
    }

    @Test func tenPagesHoldOneCopyOfWhatTheyAllReceived() throws {
        let interner = ModelRecordInterner()
        let (_, pages) = try tenPages(interner: interner)
        let keys = received(pages[0])
        #expect(keys.count == 60, "\(keys.count) task and assignment records on the page")
        for key in keys {
            let held = pages.map { page in page.confirmed.first { $0.key == key }! }
            // One key string and one record box, whichever page holds them.
            #expect(Set(held.map { storage($0.key) }).count == 1, "\(key): the pages hold separate keys")
            #expect(storage(held[0].key) != nil, "\(key) is long enough to live on the heap")
            #expect(Set(held.map { bits($0.value) }).count == 1, "\(key): the pages hold separate copies")
        }
        // The first page of each update decodes a record; the nine after it find that copy.
        let counts = interner.counts
        #expect(counts.hits >= 9 * 70, "\(counts)")
    }

    @Test func pagesWithAnInternerShowWhatPagesWithoutOneShow() throws {
        let (server, shared) = try tenPages(interner: ModelRecordInterner(generationSize: 8))
        let (_, own) = try tenPages(interner: nil)
        for (a, b) in zip(shared, own) {
            #expect(a.confirmed == b.confirmed)
            #expect(a.stamps == b.stamps)
            #expect(a.view == (try server.answer(a.query, Fixture.bo).shown))
        }
        // Without an interner each page keeps a copy of its own.
        let key = received(own[0]).first { $0.hasPrefix("assignment:") }!
        #expect(Set(own.map { p in bits(p.confirmed.first { $0.key == key }!.value) }).count == 10)
    }

    @Test func theTableHoldsTwoGenerationsAtMost() {
        let interner = ModelRecordInterner(generationSize: 10)
        func entry(_ i: Int, to user: String = "u-bo") -> ModelRecord {
            .assignment(
                AssignmentEntry(id: "as-\(i)", kind: .task, targetId: "t-\(i)", assignedBy: "u-ann", assignedTo: user))
        }
        for i in 0..<100 { _ = interner.intern(entry(i)) }
        #expect(interner.count <= 20)
        // The newest are still shared; the oldest were forgotten and start a copy of their own.
        let recent = interner.intern(entry(99))
        #expect(interner.counts.hits == 1)
        _ = interner.intern(entry(0))
        #expect(interner.counts.misses == 101)
        // A changed record is not its older version: it is returned as given and replaces it.
        let changed = interner.intern(entry(99, to: "u-ann"))
        #expect(changed.record != recent.record)
        #expect(changed.record == entry(99, to: "u-ann"))
        #expect(interner.intern(entry(99, to: "u-ann")).record == changed.record)
        #expect(interner.counts.hits == 2)
    }
}
