import Foundation
import Testing
import WhaleOT
@testable import WhaleSim

/// A packed history moves full chunks to an unlinked scratch file and reads them back in order:
/// what comes back is exactly what went in, across chunk edges, for copies made along the way
/// (a copy reads what it held; copies that both append do not mix), and with no usable temporary
/// directory the bytes stay in memory and nothing is lost.
@Suite struct PackedEventsSpillTests {
    static func entries(_ n: Int) -> [HistoryEntry] {
        let kinds = PackedEventsTests.everyKind
        return (0..<n).map { HistoryEntry(time: $0 * 7, event: kinds[$0 % kinds.count]) }
    }

    @Test func chunksSpillAndReadBackInOrder() {
        var packed = PackedEvents(chunkBytes: 256)
        let expected = Self.entries(2_000)
        for e in expected { packed.append(e) }
        #expect(packed.bytesSpilled > 0)
        #expect(packed.bytesInMemory < 256 + 200)  // a chunk plus at most one entry's worth
        #expect(packed.count == expected.count)
        #expect(Array(packed) == expected)
        #expect(Array(packed) == expected)  // reading does not consume
    }

    @Test func aLongHistoryHoldsAboutAChunkInMemory() {
        var packed = PackedEvents(chunkBytes: 4_096)
        for i in 0..<200_000 {
            packed.append(HistoryEntry(time: i, event: .clientRevision(client: i % 1000, revision: i)))
        }
        #expect(packed.bytesInMemory < 4_096 + 64)
        #expect(packed.bytesSpilled > 500_000)
        var n = 0
        for (i, e) in packed.enumerated() {
            #expect(e == HistoryEntry(time: i, event: .clientRevision(client: i % 1000, revision: i)))
            n += 1
        }
        #expect(n == 200_000)
    }

    @Test func aCopyReadsWhatItHeldWhileTheOriginalGoesOn() {
        var original = PackedEvents(chunkBytes: 300)
        let all = Self.entries(1_500)
        for e in all[..<700] { original.append(e) }
        let copy = original
        for e in all[700...] { original.append(e) }
        #expect(Array(copy) == Array(all[..<700]))
        #expect(Array(original) == all)
    }

    @Test func twoCopiesThatBothAppendDoNotMix() {
        var a = PackedEvents(chunkBytes: 300)
        let all = Self.entries(900)
        for e in all[..<400] { a.append(e) }
        var b = a
        let other = (0..<500).map { HistoryEntry(time: 5_000 + $0, event: .note("b \($0)")) }
        for e in all[400...] { a.append(e) }
        for e in other { b.append(e) }
        #expect(Array(a) == all)
        #expect(Array(b) == Array(all[..<400]) + other)
    }

    @Test func withNoUsableTemporaryDirectoryTheBytesStayInMemory() {
        let nowhere = "/nonexistent/whalesim-no-such-dir"
        #expect(SpillFile(directory: nowhere) == nil)
        var packed = PackedEvents(chunkBytes: 128, spillDirectory: nowhere)
        let expected = Self.entries(600)
        for e in expected { packed.append(e) }
        #expect(packed.bytesSpilled == 0)
        #expect(Array(packed) == expected)
    }

    @Test func theScratchFileLeavesNothingBehind() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("whalesim-spill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try #require(SpillFile(directory: dir.path))
        #expect(file.append([1, 2, 3], at: 0))
        #expect(!file.append([4], at: 0))  // not the end: another writer's offset
        #expect(file.append([4], at: 3))
        #expect(file.read(at: 1, count: 3) == [2, 3, 4])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)  // unlinked at once
    }
}
