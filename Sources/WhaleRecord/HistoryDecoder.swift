/// The inverse of ``HistoryEncoder``: records of the decompressed stream back into lines.
/// It works on whatever part of the stream is buffered: when a record is cut off at the end of
/// the buffer it reports `nil` and changes nothing, and the caller decompresses more and asks again.
struct HistoryDecoder {
    typealias Kind = HistoryEncoder.Kind
    typealias Tag = HistoryEncoder.Tag

    private struct ShapeField {
        var key: [UInt8]
        var kind: Kind
        var constant: [UInt8]
    }

    enum Step: Equatable {
        case line([UInt8])
        case end
    }

    private struct NeedMore: Error {}

    private var shapes: [[ShapeField]] = []
    private var tables: [[UInt8]: [[UInt8]]] = [:]
    private var lastTime: Int64 = 0
    private var lastInts: [[Int64]] = []
    static let maxStringLength = 1 << 30

    /// The next line (or the end marker) from `cursor`, or nil when the buffered bytes end inside a record.
    mutating func next(_ cursor: inout ByteCursor) throws(RecordFileError) -> Step? {
        var p = cursor.position
        let b = cursor.bytes
        var interned: [([UInt8], [UInt8])] = []
        var newShape: [ShapeField]?
        var time = lastTime
        do {
            func byte() throws -> UInt8 {
                guard p < b.count else { throw NeedMore() }
                defer { p += 1 }
                return b[p]
            }
            func varint() throws -> UInt64 {
                var v: UInt64 = 0
                var shift: UInt64 = 0
                while true {
                    let x = try byte()
                    guard shift < 64 else { throw RecordFileError.corrupt("a varint is too long") }
                    v |= UInt64(x & 0x7F) << shift
                    if x & 0x80 == 0 { return v }
                    shift += 7
                }
            }
            func bytes() throws -> ArraySlice<UInt8> {
                let n = try varint()
                guard n <= UInt64(Self.maxStringLength) else { throw RecordFileError.corrupt("a string of \(n) bytes") }
                guard b.count - p >= Int(n) else { throw NeedMore() }
                defer { p += Int(n) }
                return b[p..<(p + Int(n))]
            }
            func string(_ key: [UInt8]) throws -> [UInt8] {
                let tag = try varint()
                switch tag {
                case HistoryEncoder.StringTag.literal: return Array(try bytes())
                case HistoryEncoder.StringTag.intern:
                    let s = Array(try bytes())
                    let have = (tables[key]?.count ?? 0) + interned.count { $0.0 == key }
                    guard have < HistoryEncoder.maxTableEntries else {
                        throw RecordFileError.corrupt("a string table past \(HistoryEncoder.maxTableEntries) entries")
                    }
                    interned.append((key, s))
                    return s
                default:
                    let index = tag - HistoryEncoder.StringTag.firstEntry
                    guard let table = tables[key], index < UInt64(table.count) else {
                        throw RecordFileError.corrupt(
                            "string \(index) of key \(String(decoding: key, as: UTF8.self)) is not in its table")
                    }
                    return table[Int(index)]
                }
            }

            var tag = try varint()
            if tag == Tag.end {
                cursor.position = p
                return .end
            }
            if tag == Tag.rawLine {
                let line = Array(try bytes())
                cursor.position = p
                return .line(line)
            }
            if tag == Tag.defineShape {
                guard shapes.count < HistoryEncoder.maxShapes else {
                    throw RecordFileError.corrupt("more than \(HistoryEncoder.maxShapes) shapes")
                }
                let count = try varint()
                guard count >= 1, count <= 1024 else { throw RecordFileError.corrupt("a shape of \(count) fields") }
                var fields: [ShapeField] = []
                for _ in 0..<count {
                    let key = Array(try bytes())
                    guard let kind = Kind(rawValue: try byte()) else {
                        throw RecordFileError.corrupt("a field of unknown kind")
                    }
                    let constant = kind == .constant ? Array(try bytes()) : []
                    fields.append(ShapeField(key: key, kind: kind, constant: constant))
                }
                newShape = fields
                tag = try varint()
                guard tag == Tag.firstShape + UInt64(shapes.count) else {
                    throw RecordFileError.corrupt("a shape definition not followed by its line")
                }
            }
            guard tag >= Tag.firstShape else { throw RecordFileError.corrupt("unknown record tag \(tag)") }
            let index = tag - Tag.firstShape
            let shape: [ShapeField]
            var ints: [Int64]
            if let newShape, index == UInt64(shapes.count) {
                shape = newShape
                ints = Array(repeating: 0, count: newShape.count)
            } else {
                guard index < UInt64(shapes.count) else {
                    throw RecordFileError.corrupt("shape \(index) is not defined")
                }
                shape = shapes[Int(index)]
                ints = lastInts[Int(index)]
            }
            var line: [UInt8] = [UInt8(ascii: "{")]
            for (i, f) in shape.enumerated() {
                if i > 0 { line.append(UInt8(ascii: ",")) }
                line.append(UInt8(ascii: "\""))
                line += f.key
                line += [UInt8(ascii: "\""), UInt8(ascii: ":")]
                switch f.kind {
                case .int:
                    ints[i] = ints[i] &+ unzigzag(try varint())
                    line += String(ints[i]).utf8
                case .timeDelta:
                    time = time &+ unzigzag(try varint())
                    line += String(time).utf8
                case .string:
                    line.append(UInt8(ascii: "\""))
                    line += try string(f.key)
                    line.append(UInt8(ascii: "\""))
                case .counted:
                    line.append(UInt8(ascii: "\""))
                    line += try string(f.key)
                    line.append(UInt8(ascii: ":"))
                    line += String(try varint()).utf8
                    line.append(UInt8(ascii: "\""))
                case .operation:
                    line.append(UInt8(ascii: "\""))
                    do { line += try OperationText.read(b, &p) } catch is OperationText.Short { throw NeedMore() }
                    line.append(UInt8(ascii: "\""))
                case .true: line += "true".utf8
                case .false: line += "false".utf8
                case .null: line += "null".utf8
                case .constant:
                    line.append(UInt8(ascii: "\""))
                    line += f.constant
                    line.append(UInt8(ascii: "\""))
                }
            }
            line.append(UInt8(ascii: "}"))
            // The whole record was there: keep what it taught.
            if let newShape {
                shapes.append(newShape)
                lastInts.append(ints)
            } else {
                lastInts[Int(index)] = ints
            }
            for (k, s) in interned { tables[k, default: []].append(s) }
            lastTime = time
            cursor.position = p
            return .line(line)
        } catch is NeedMore {
            return nil
        } catch let e as RecordFileError {
            throw e
        } catch {
            throw .corrupt("\(error)")
        }
    }
}
