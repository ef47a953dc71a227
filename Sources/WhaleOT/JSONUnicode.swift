/// Checks raw JSON text for ill-formed Unicode before any JSON parser sees it: the bytes must be
/// UTF-8 and every `\uXXXX` surrogate escape must be half of a pair. Operations count Unicode
/// scalars, so text that is not a sequence of scalars cannot be edited; and parsers disagree
/// here (json-c turns a lone surrogate escape into U+FFFD and passes invalid UTF-8 through;
/// JSONDecoder rejects both with a message that does not say so). Call it on every frame the
/// protocol codec decodes and on the CLI's input.
///
/// ```swift
/// try JSONUnicode.validate(Array(#"{"s":["\ud800"]}"#.utf8))
/// // throws OTError.illFormedUnicode("lone surrogate escape \ud800 at byte 7")
/// ```
public enum JSONUnicode {
    public static func validate(_ bytes: some Collection<UInt8>) throws(OTError) {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(OTError) in try validate(buffer) }
        }
        if let result { return try result.get() }
        let copy = Array(bytes)
        try copy.withUnsafeBufferPointer { buffer throws(OTError) in try validate(buffer) }
    }

    static func validate(_ bytes: UnsafeBufferPointer<UInt8>) throws(OTError) {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        decoding: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: break decoding
            case .error: throw .illFormedUnicode("invalid UTF-8 at byte \(offset)")
            }
        }
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "\\"), i + 1 < bytes.count else { i += 1; continue }
            guard let unit = escapedUnit(bytes, at: i) else { i += 2; continue }  // \\, \n, \" ...
            if (0xDC00...0xDFFF).contains(unit) { throw lone(bytes, at: i) }
            if (0xD800...0xDBFF).contains(unit) {
                guard let low = escapedUnit(bytes, at: i + 6), (0xDC00...0xDFFF).contains(low) else {
                    throw lone(bytes, at: i)
                }
                i += 12
                continue
            }
            i += 6
        }
    }

    /// The code unit of a `\uXXXX` escape starting at `i`, or nil if there is none.
    private static func escapedUnit(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> UInt32? {
        guard i + 6 <= bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
            return nil
        }
        var unit: UInt32 = 0
        for byte in bytes[(i + 2)..<(i + 6)] {
            guard let digit = hexDigit(byte) else { return nil }
            unit = unit << 4 | digit
        }
        return unit
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private static func lone(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> OTError {
        let spelled = String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<(i + 6)]), as: UTF8.self)
        return .illFormedUnicode("lone surrogate escape \(spelled) at byte \(i)")
    }
}
