extension Compiler {
    /// Equality conjuncts an index can answer: in a top-level AND (or a lone condition),
    /// `field = 'x'`, `field IN ('x','y')` and `field = 'x' OR field = 'y'` on a local text, id,
    /// reference or boolean field. The full filter still runs on the candidates, so a hint can
    /// only narrow the scan, never change the answer.
    func indexHints(_ condition: Condition, _ scope: Scope) -> [IndexHint] {
        let conjuncts: [Condition]
        if case .and(let items) = condition { conjuncts = items } else { conjuncts = [condition] }
        return conjuncts.compactMap { conjunct -> IndexHint? in
            guard var h = hint(conjunct, scope) else { return nil }
            if h.position == 0 { h.exactIds = Compiler.idLiterals(conjunct) }
            return h
        }
    }

    /// Canonical ids of the string literals of an Id condition, by normalized key.
    static func idLiterals(_ condition: Condition) -> [String: String] {
        var result: [String: String] = [:]
        func add(_ literal: Literal) {
            if case .string(let s, _) = literal, let id = SalesforceId.to18(s) { result[id.lowercased()] = id }
        }
        switch condition {
        case .compare(_, _, let literal, _): add(literal)
        case .inList(_, let literals, _, _): literals.forEach(add)
        case .or(let items): items.forEach { result.merge(idLiterals($0)) { a, _ in a } }
        default: break
        }
        return result
    }

    private func hint(_ condition: Condition, _ scope: Scope) -> IndexHint? {
        switch condition {
        case .compare(.path(let path), .equal, let literal, let offset):
            guard let position = indexablePosition(path, scope), literal != .null,
                let key = try? literalKey(literal, field: org.schemas[scope.table].fields[position], offset: offset)
            else { return nil }
            return IndexHint(position: position, keys: [key])
        case .inList(.path(let path), let literals, false, let offset):
            guard let position = indexablePosition(path, scope), !literals.contains(.null) else { return nil }
            let field = org.schemas[scope.table].fields[position]
            var keys: [String] = []
            for literal in literals {
                guard let key = try? literalKey(literal, field: field, offset: offset) else { return nil }
                keys.append(key)
            }
            return IndexHint(position: position, keys: keys)
        case .or(let items):
            var position: Int?
            var keys: [String] = []
            for item in items {
                guard let h = hint(item, scope), position == nil || position == h.position else { return nil }
                position = h.position
                keys.append(contentsOf: h.keys)
            }
            return position.map { IndexHint(position: $0, keys: keys) }
        default:
            return nil
        }
    }

    private func indexablePosition(_ path: Path, _ scope: Scope) -> Int? {
        guard let resolved = try? resolve(path, scope), resolved.accessor.hops.isEmpty,
            case .position(let p) = resolved.accessor.final
        else { return nil }
        switch resolved.accessor.field.type {
        case .string, .picklist, .phone, .url, .email, .id, .reference, .boolean: return p
        default: return nil
        }
    }
}
