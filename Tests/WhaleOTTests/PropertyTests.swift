import Foundation
import Testing
import WhaleOT
import WhalesimTesting

/// Seeded property tests over random documents with non-ASCII scalars. A failure prints its
/// seed; `forEachSeed(cases: 1, seed: <seed>)` replays it.
@Suite("OT properties (seeded)")
struct PropertyTests {
    static let cases = 3000

    @Test func tp1BothTransformOrdersGiveTheSameText() {
        forEachSeed(cases: Self.cases, seed: 0x7001) { rng in
            let doc = RandomOperation.document(using: &rng)
            let n = doc.unicodeScalars.count
            let a = RandomOperation.operation(baseLength: n, using: &rng)
            let b = RandomOperation.operation(baseLength: n, using: &rng)
            let (aPrime, bPrime) = try Operation.transform(a, b)
            let viaA = try bPrime.apply(to: a.apply(to: doc))
            let viaB = try aPrime.apply(to: b.apply(to: doc))
            return viaA == viaB
                ? nil
                : "doc \(doc.debugDescription) a=\(a) b=\(b): \(viaA.debugDescription) != \(viaB.debugDescription)"
        }
    }

    @Test func composeOfTransformedPairsIsStructurallyEqual() {
        forEachSeed(cases: Self.cases, seed: 0x7002) { rng in
            let n = Int.random(in: 0...30, using: &rng)
            let a = RandomOperation.operation(baseLength: n, using: &rng)
            let b = RandomOperation.operation(baseLength: n, using: &rng)
            let (aPrime, bPrime) = try Operation.transform(a, b)
            let left = try Operation.compose(a, bPrime)
            let right = try Operation.compose(b, aPrime)
            return left == right ? nil : "a=\(a) b=\(b): compose(a,b')=\(left) compose(b,a')=\(right)"
        }
    }

    @Test func transformedOperationsHaveTheRightLengths() {
        forEachSeed(cases: Self.cases, seed: 0x7003) { rng in
            let n = Int.random(in: 0...30, using: &rng)
            let a = RandomOperation.operation(baseLength: n, using: &rng)
            let b = RandomOperation.operation(baseLength: n, using: &rng)
            let (aPrime, bPrime) = try Operation.transform(a, b)
            guard aPrime.baseLength == b.targetLength, bPrime.baseLength == a.targetLength,
                aPrime.targetLength == bPrime.targetLength
            else { return "a=\(a) b=\(b) a'=\(aPrime) b'=\(bPrime)" }
            return isCanonical(aPrime) && isCanonical(bPrime) ? nil : "not canonical: a'=\(aPrime) b'=\(bPrime)"
        }
    }

    @Test func composeEqualsApplyingInSequence() {
        forEachSeed(cases: Self.cases, seed: 0x7004) { rng in
            let doc = RandomOperation.document(using: &rng)
            let a = RandomOperation.operation(baseLength: doc.unicodeScalars.count, using: &rng)
            let b = RandomOperation.operation(baseLength: a.targetLength, using: &rng)
            let ab = try Operation.compose(a, b)
            let composed = try ab.apply(to: doc)
            let sequential = try b.apply(to: a.apply(to: doc))
            guard composed == sequential else { return "doc \(doc.debugDescription) a=\(a) b=\(b) ab=\(ab)" }
            return isCanonical(ab) ? nil : "compose is not canonical: \(ab)"
        }
    }

    @Test func invertRoundTrips() {
        forEachSeed(cases: Self.cases, seed: 0x7005) { rng in
            let doc = RandomOperation.document(using: &rng)
            let a = RandomOperation.operation(baseLength: doc.unicodeScalars.count, using: &rng)
            let after = try a.apply(to: doc)
            let inverse = try a.invert(base: doc)
            guard try inverse.apply(to: after) == doc else {
                return "doc \(doc.debugDescription) a=\(a) inverse=\(inverse)"
            }
            // compose(a, invert(a)) gives the document back (it may delete and reinsert the same
            // text, so it need not be a no-op structurally), and inverting twice gives a back.
            let identity = try Operation.compose(a, inverse)
            guard try identity.apply(to: doc) == doc else {
                return "compose(a, invert a) = \(identity) changes \(doc.debugDescription)"
            }
            let twice = try inverse.invert(base: after)
            return twice == a ? nil : "invert(invert a) = \(twice) != a = \(a)"
        }
    }

    @Test func codecsRoundTrip() {
        let encoder = JSONEncoder(), decoder = JSONDecoder()
        forEachSeed(cases: Self.cases, seed: 0x7006) { rng in
            let a = RandomOperation.operation(baseLength: Int.random(in: 0...30, using: &rng), using: &rng)
            let fromWire = try a.wire.operation()
            let wireJSON = try decoder.decode(WireOperation.self, from: encoder.encode(a.wire))
            let fromOTJS = try Operation(otjs: a.otjs)
            let otjsJSON = try decoder.decode(Operation.self, from: encoder.encode(a))
            guard fromWire == a, try wireJSON.operation() == a, fromOTJS == a, otjsJSON == a else {
                return "a=\(a) wire=\(fromWire) otjs=\(fromOTJS)"
            }
            return nil
        }
    }

    @Test func cursorsStayInBoundsAndSelectionsKeepDirection() {
        forEachSeed(cases: Self.cases, seed: 0x7007) { rng in
            let n = Int.random(in: 0...30, using: &rng)
            let a = RandomOperation.operation(baseLength: n, using: &rng)
            let rule = CursorRule.allCases.randomElement(using: &rng)!
            let selection = Selection(
                anchor: Int.random(in: 0...n, using: &rng), head: Int.random(in: 0...n, using: &rng))
            let moved = try a.transform(selection: selection, rule: rule)
            for end in [moved.anchor, moved.head] where end < 0 || end > a.targetLength {
                return "a=\(a) \(rule) \(selection) → \(moved) outside 0...\(a.targetLength)"
            }
            // Direction: a backward selection never becomes forward, nor the reverse (it may collapse).
            if (selection.head < selection.anchor && moved.head > moved.anchor)
                || (selection.head > selection.anchor && moved.head < moved.anchor)
            {
                return "a=\(a) \(rule) \(selection) flipped to \(moved)"
            }
            return nil
        }
    }

    @Test func cursorTransformIsMonotone() {
        forEachSeed(cases: Self.cases, seed: 0x7008) { rng in
            let n = Int.random(in: 0...30, using: &rng)
            let a = RandomOperation.operation(baseLength: n, using: &rng)
            for rule in CursorRule.allCases {
                var previous = 0
                for cursor in 0...n {
                    let moved = try a.transform(cursor: cursor, rule: rule)
                    if moved < previous { return "a=\(a) \(rule): cursor \(cursor) → \(moved) < \(previous)" }
                    previous = moved
                }
            }
            return nil
        }
    }

    @Test func composeIsAssociative() {
        forEachSeed(cases: Self.cases, seed: 0x700B) { rng in
            let a = RandomOperation.operation(baseLength: Int.random(in: 0...20, using: &rng), using: &rng)
            let b = RandomOperation.operation(baseLength: a.targetLength, using: &rng)
            let c = RandomOperation.operation(baseLength: b.targetLength, using: &rng)
            let left = try Operation.compose(Operation.compose(a, b), c)
            let right = try Operation.compose(a, Operation.compose(b, c))
            return left == right ? nil : "a=\(a) b=\(b) c=\(c): (ab)c=\(left) a(bc)=\(right)"
        }
    }

    @Test func textDocumentApplyEqualsOperationApply() {
        forEachSeed(cases: Self.cases, seed: 0x7009) { rng in
            var text = RandomOperation.document(using: &rng)
            var doc = TextDocument(text)
            // A few operations in a row, so the gap moves and grows between them.
            for _ in 0..<5 {
                let a = RandomOperation.operation(baseLength: doc.count, using: &rng)
                try doc.apply(a)
                text = try a.apply(to: text)
                if doc.text != text { return "after \(a): \(doc.text.debugDescription) != \(text.debugDescription)" }
            }
            return doc.count == text.unicodeScalars.count ? nil : "count \(doc.count)"
        }
    }

    @Test func randomEditsAreCanonicalAndSpanTheDocument() {
        forEachSeed(cases: Self.cases, seed: 0x700A) { rng in
            let n = Int.random(in: 0...30, using: &rng)
            let edit = RandomOperation.edit(baseLength: n, using: &rng)
            let a = RandomOperation.operation(baseLength: n, using: &rng)
            guard edit.baseLength == n, a.baseLength == n else { return "lengths \(edit) \(a)" }
            guard !edit.isNoop || n == 0 else { return "edit is a no-op: \(edit)" }
            return isCanonical(edit) && isCanonical(a) ? nil : "not canonical: \(edit) \(a)"
        }
    }
}

/// Canonical form, checked independently of the builders: no empty components, no two
/// adjacent components of one kind, no insert right after a delete.
func isCanonical(_ o: Operation) -> Bool {
    var previous: Component?
    for component in o.components {
        switch (previous, component) {
        case (_, .retain(let n)) where n <= 0, (_, .delete(let n)) where n <= 0: return false
        case (_, .insert(let s, let n)) where n <= 0 || s.unicodeScalars.count != n: return false
        case (.retain?, .retain), (.insert?, .insert), (.delete?, .delete), (.delete?, .insert): return false
        default: break
        }
        previous = component
    }
    return true
}
