import ArgumentParser
import WhaleOT

/// `whalesim ot cursor`: `{doc, op, cursor, rule}` → `{cursor}` in the shape given.
struct OTCursorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cursor",
        abstract:
            "Move a cursor or selection through an operation: {doc, op, cursor, rule} on stdin, {cursor} on stdout.",
        discussion: """
            cursor is a scalar offset (int) or a selection {"anchor": int, "head": int}; the output \
            has the same shape. rule says what happens to a cursor exactly where text is inserted:
              otjs    moves after the insert (ot.js)
              remote  stays before it (another user's cursor)
              own     moves after it (the author's own cursor)
            A cursor inside a deleted range goes to the deletion start; selections keep their direction.

            Example:
              echo '{"doc":"abc","op":[1,"XY",2],"cursor":1,"rule":"remote"}' \\
                | whalesim ot cursor
              {"cursor":1}
              # a backward selection
              echo '{"doc":"ab","op":["X",2],"rule":"own",' \\
                '"cursor":{"anchor":2,"head":0}}' | whalesim ot cursor
              {"cursor":{"anchor":3,"head":1}}
            """
    )

    func run() throws {
        try OTInput.run(command: "cursor") { input in
            let object = try input.object(keys: ["doc", "op", "cursor", "rule"])
            let doc = try object.string("doc")
            let op = try object.operation("op", spanning: doc, named: "the document")
            let ruleName = try object.string("rule")
            guard let rule = CursorRule(rawValue: ruleName) else {
                let known = CursorRule.allCases.map(\.rawValue).joined(separator: ", ")
                throw BadInput("unknown rule \(OTInput.quoted(ruleName)) (expected one of \(known))")
            }
            let cursor = try object.cursor("cursor")
            do {
                switch cursor {
                case .offset(let offset):
                    return ["cursor": .int(try op.transform(cursor: offset, rule: rule))]
                case .selection(let selection):
                    let moved = try op.transform(selection: selection, rule: rule)
                    return ["cursor": .object(["anchor": .int(moved.anchor), "head": .int(moved.head)])]
                }
            } catch {
                throw BadInput("\"cursor\": \(error)")
            }
        }
    }
}
