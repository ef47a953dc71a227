import WhaleOT

/// Reads the members of one JSON object strictly: a missing or mistyped member, or one that is
/// not expected, is a `malformedMessage` error that names it by its path (`data.rev`).
struct FieldReader {
    let path: String
    let members: [(String, WireJSON)]
    /// Which members were read (by index: cheaper than hashing keys on the hot path).
    var used: [Bool]

    init(_ value: WireJSON, path: String) throws(ProtocolError) {
        guard case .object(let members) = value else {
            throw ProtocolError(
                .malformedMessage, "\(path.isEmpty ? "the message" : path) must be an object, got \(value.kind)")
        }
        self.path = path
        self.members = members
        self.used = Array(repeating: false, count: members.count)
    }

    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    mutating func optional(_ key: String) -> WireJSON? {
        guard let index = members.firstIndex(where: { $0.0 == key }) else { return nil }
        used[index] = true
        let value = members[index].1
        if case .null = value { return nil }
        return value
    }

    mutating func required(_ key: String) throws(ProtocolError) -> WireJSON {
        guard let value = optional(key) else { throw ProtocolError(.malformedMessage, "missing \(name(key))") }
        return value
    }

    mutating func string(_ key: String) throws(ProtocolError) -> String {
        let value = try required(key)
        guard case .string(let s) = value else {
            throw ProtocolError(.malformedMessage, "\(name(key)) must be a string, got \(value.kind)")
        }
        return s
    }

    mutating func optionalString(_ key: String) throws(ProtocolError) -> String? {
        guard let value = optional(key) else { return nil }
        guard case .string(let s) = value else {
            throw ProtocolError(.malformedMessage, "\(name(key)) must be a string, got \(value.kind)")
        }
        return s
    }

    mutating func int(_ key: String) throws(ProtocolError) -> Int {
        let value = try required(key)
        guard case .int(let i) = value else {
            throw ProtocolError(.malformedMessage, "\(name(key)) must be an integer, got \(value.kind)")
        }
        return i
    }

    mutating func optionalInt(_ key: String) throws(ProtocolError) -> Int? {
        guard let value = optional(key) else { return nil }
        guard case .int(let i) = value else {
            throw ProtocolError(.malformedMessage, "\(name(key)) must be an integer, got \(value.kind)")
        }
        return i
    }

    /// The `n`/`s` arrays of an op, validated into a canonical operation (`badOperation` if malformed).
    mutating func operation() throws(ProtocolError) -> Operation {
        let nValue = try required("n"), sValue = try required("s")
        guard case .array(let nArray) = nValue else {
            throw ProtocolError(.malformedMessage, "\(name("n")) must be an array, got \(nValue.kind)")
        }
        guard case .array(let sArray) = sValue else {
            throw ProtocolError(.malformedMessage, "\(name("s")) must be an array, got \(sValue.kind)")
        }
        var n: [Int] = [], s: [String] = []
        n.reserveCapacity(nArray.count)
        s.reserveCapacity(sArray.count)
        for (i, element) in nArray.enumerated() {
            guard case .int(let k) = element else {
                throw ProtocolError(.malformedMessage, "\(name("n"))[\(i)] must be an integer, got \(element.kind)")
            }
            n.append(k)
        }
        for (i, element) in sArray.enumerated() {
            guard case .string(let t) = element else {
                throw ProtocolError(.malformedMessage, "\(name("s"))[\(i)] must be a string, got \(element.kind)")
            }
            s.append(t)
        }
        do {
            return try WireOperation(n: n, s: s).operation()
        } catch {
            throw ProtocolError(.badOperation, "\(path): \(error)")
        }
    }

    /// Rejects members nobody read.
    func finish() throws(ProtocolError) {
        if let extra = used.firstIndex(of: false) {
            throw ProtocolError(.malformedMessage, "unexpected member \(name(members[extra].0))")
        }
    }
}
