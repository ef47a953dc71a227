/// Turns history lines (flat JSON objects, as `History.jsonLines()` writes them) into the compact
/// event stream of a history file (docs/run-record.md, "The history file"), before deflate.
///
/// A line is stored as its *shape* (its keys in order, each value's kind, and the `type` string),
/// defined once and then named by number, followed by its values: `t` as a zigzag delta from the
/// line before, other integers as zigzag varints, strings from a table per key that grows as
/// names first appear (clients, documents, error codes), an op id `c008.mwx8ir1z:17` as its
/// interned prefix and the counter as a varint, an op in ot.js form (`[12,\"c\",-3]`) as its
/// components (ints as varints, texts as they stand). String contents are kept byte for byte as the
/// JSON had them (escapes and all), so decoding gives back the very line. A line that is not a
/// flat object of this kind (whitespace, a nested value, a number that is not a plain int64) is
/// kept whole, so nothing is ever lost.
struct HistoryEncoder {
    /// Tags that start a record in the stream; a shape's lines are `firstShapeTag + shape`.
    enum Tag {
        static let end: UInt64 = 0
        static let defineShape: UInt64 = 1
        static let rawLine: UInt64 = 2
        static let firstShape: UInt64 = 3
    }

    /// What a field's value is; part of the shape.
    enum Kind: UInt8 {
        case int = 0, timeDelta = 1, string = 2, counted = 3, `true` = 4, `false` = 5, null = 6, constant = 7,
            operation = 8
    }

    /// String tags: a literal kept out of the table, a literal added to it, or table entry `tag − 2`.
    enum StringTag {
        static let literal: UInt64 = 0
        static let intern: UInt64 = 1
        static let firstEntry: UInt64 = 2
    }

    static let maxShapes = 1 << 16
    static let maxTableEntries = 1 << 16
    static let maxInternedLength = 48
    /// Keys whose values are free text, different nearly every time: never interned.
    static let freeText: Set<[UInt8]> = Set(
        ["op", "inserted", "text", "message", "detail", "records", "mutation"].map { Array($0.utf8) })

    private var shapes: [[UInt8]: Int] = [:]
    private var signature: [UInt8] = []
    /// The string tables, one per key, and per shape and field the table its strings use (nil:
    /// free text, or not a string). Slices of their own small arrays as keys: a lookup copies nothing.
    private var tables: [[ArraySlice<UInt8>: Int]] = []
    private var tableOfKey: [[UInt8]: Int] = [:]
    private var shapeTables: [[Int?]] = []
    private var lastTime: Int64 = 0
    /// Per shape, the last value of each int field: ints are written as the change from it
    /// (a revision broadcast to a hundred clients is a hundred zeros).
    private var lastInts: [[Int64]] = []

    private struct Field {
        var key: Range<Int>
        var kind: Kind
        var value: Range<Int>  // string contents (without quotes), or the digits of an int
        var number: Int64 = 0
        var counter: Int64 = 0  // for `counted`: the value is `contents[value]` + ":" + counter
        var components: [OperationText.Component] = []  // for `operation`
    }

    /// Appends the records for one line (without its newline) to `out`.
    mutating func encode(_ line: [UInt8], into out: inout [UInt8]) {
        guard let fields = Self.parse(line), let shape = shapeID(line, fields, out: &out) else {
            out.appendVarint(Tag.rawLine)
            out.appendBytes(line)
            return
        }
        out.appendVarint(Tag.firstShape + UInt64(shape))
        for (i, f) in fields.enumerated() {
            switch f.kind {
            case .int:
                out.appendZigzag(f.number &- lastInts[shape][i])
                lastInts[shape][i] = f.number
            case .timeDelta:
                out.appendZigzag(f.number &- lastTime)
                lastTime = f.number
            case .string: appendString(table: shapeTables[shape][i], line[f.value], into: &out)
            case .counted:
                appendString(table: shapeTables[shape][i], line[f.value], into: &out)
                out.appendVarint(UInt64(f.counter))
            case .operation:
                OperationText.append(f.components, line, into: &out)
            case .true, .false, .null, .constant: break
            }
        }
    }

    private mutating func appendString(table: Int?, _ value: ArraySlice<UInt8>, into out: inout [UInt8]) {
        guard let table, value.count <= Self.maxInternedLength else {
            out.appendVarint(StringTag.literal)
            out.appendBytes(value)
            return
        }
        if let index = tables[table][value] {
            out.appendVarint(StringTag.firstEntry + UInt64(index))
            return
        }
        let count = tables[table].count
        if count < Self.maxTableEntries {
            tables[table][Array(value)[...]] = count
            out.appendVarint(StringTag.intern)
        } else {
            out.appendVarint(StringTag.literal)
        }
        out.appendBytes(value)
    }

    /// The line's shape number, defining it in `out` when it is new; nil when the table is full.
    private mutating func shapeID(_ line: [UInt8], _ fields: [Field], out: inout [UInt8]) -> Int? {
        signature.removeAll(keepingCapacity: true)
        signature.appendVarint(UInt64(fields.count))
        for f in fields {
            signature.appendBytes(line[f.key])
            signature.append(f.kind.rawValue)
            if f.kind == .constant { signature.appendBytes(line[f.value]) }
        }
        if let id = shapes[signature] { return id }
        guard shapes.count < Self.maxShapes else { return nil }
        let id = shapes.count
        shapes[signature] = id
        lastInts.append(Array(repeating: 0, count: fields.count))
        shapeTables.append(
            fields.map { f -> Int? in
                let key = Array(line[f.key])
                guard f.kind == .string || f.kind == .counted, !Self.freeText.contains(key) else { return nil }
                if let t = tableOfKey[key] { return t }
                tables.append([:])
                tableOfKey[key] = tables.count - 1
                return tables.count - 1
            })
        out.appendVarint(Tag.defineShape)
        out += signature
        return id
    }

    /// Splits `{"k":v,...}` written without whitespace, values int / string / true / false / null.
    private static func parse(_ b: [UInt8]) -> [Field]? {
        let n = b.count
        guard n >= 2, b[0] == UInt8(ascii: "{"), b[n - 1] == UInt8(ascii: "}") else { return nil }
        var fields: [Field] = []
        var i = 1
        var sawTime = false
        while true {
            guard i < n, b[i] == UInt8(ascii: "\"") else { return nil }
            guard let keyEnd = stringEnd(b, from: i + 1) else { return nil }
            let key = (i + 1)..<keyEnd
            i = keyEnd + 1
            guard i < n, b[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            guard i < n else { return nil }
            var field: Field
            switch b[i] {
            case UInt8(ascii: "\""):
                guard let end = stringEnd(b, from: i + 1) else { return nil }
                let contents = (i + 1)..<end
                if b[key].elementsEqual("type".utf8) {
                    field = Field(key: key, kind: .constant, value: contents)
                } else if let components = OperationText.parse(b, contents) {
                    field = Field(key: key, kind: .operation, value: contents, components: components)
                } else if let (prefixEnd, counter) = counted(b, contents) {
                    field = Field(key: key, kind: .counted, value: contents.lowerBound..<prefixEnd, counter: counter)
                } else {
                    field = Field(key: key, kind: .string, value: contents)
                }
                i = end + 1
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var j = i
                if b[j] == UInt8(ascii: "-") { j += 1 }
                let digits = j
                while j < n, b[j] >= UInt8(ascii: "0"), b[j] <= UInt8(ascii: "9") { j += 1 }
                guard let number = canonicalInt(b, i..<j, digits: digits..<j) else { return nil }
                let isTime = !sawTime && b[key].elementsEqual("t".utf8)
                if isTime { sawTime = true }
                field = Field(key: key, kind: isTime ? .timeDelta : .int, value: i..<j, number: number)
                i = j
            case UInt8(ascii: "t"):
                guard b[i..<min(n, i + 4)].elementsEqual("true".utf8) else { return nil }
                field = Field(key: key, kind: .true, value: i..<i)
                i += 4
            case UInt8(ascii: "f"):
                guard b[i..<min(n, i + 5)].elementsEqual("false".utf8) else { return nil }
                field = Field(key: key, kind: .false, value: i..<i)
                i += 5
            case UInt8(ascii: "n"):
                guard b[i..<min(n, i + 4)].elementsEqual("null".utf8) else { return nil }
                field = Field(key: key, kind: .null, value: i..<i)
                i += 4
            default:
                return nil
            }
            fields.append(field)
            guard i < n else { return nil }
            if b[i] == UInt8(ascii: "}") { return i == n - 1 ? fields : nil }
            guard b[i] == UInt8(ascii: ",") else { return nil }
            i += 1
        }
    }

    /// The index of the closing quote of a string whose contents start at `from`.
    private static func stringEnd(_ b: [UInt8], from: Int) -> Int? {
        var i = from
        while i < b.count {
            switch b[i] {
            case UInt8(ascii: "\\"): i += 2
            case UInt8(ascii: "\""): return i
            default: i += 1
            }
        }
        return nil
    }

    /// An int written the one way `String(Int)` writes it (no `+`, no leading zeros, no `-0`), in Int64.
    private static func canonicalInt(_ b: [UInt8], _ all: Range<Int>, digits: Range<Int>) -> Int64? {
        guard !digits.isEmpty, digits.count <= 19 else { return nil }
        if b[digits.lowerBound] == UInt8(ascii: "0") && (digits.count > 1 || digits.lowerBound != all.lowerBound) {
            return nil
        }
        var v: Int64 = 0
        for k in digits {
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(b[k] - UInt8(ascii: "0")))
            guard !o1, !o2 else {
                // Int64.min has no positive twin; keep such lines whole.
                return nil
            }
            v = s
        }
        return digits.lowerBound != all.lowerBound ? -v : v
    }

    /// `prefix:N` with a non-empty prefix and N a canonical decimal of at most 18 digits.
    private static func counted(_ b: [UInt8], _ s: Range<Int>) -> (prefixEnd: Int, counter: Int64)? {
        var j = s.upperBound
        while j > s.lowerBound, b[j - 1] >= UInt8(ascii: "0"), b[j - 1] <= UInt8(ascii: "9") { j -= 1 }
        let digits = j..<s.upperBound
        guard !digits.isEmpty, digits.count <= 18, j - 1 > s.lowerBound, b[j - 1] == UInt8(ascii: ":") else {
            return nil
        }
        if b[j] == UInt8(ascii: "0") && digits.count > 1 { return nil }
        var v: Int64 = 0
        for k in digits { v = v * 10 + Int64(b[k] - UInt8(ascii: "0")) }
        return (j - 1, v)
    }
}
