import ArgumentParser
import WhaleOT

/// `whalesim ot apply`: `{doc, op}` → `{doc}`.
struct OTApplyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Apply an operation to a document: {doc, op} on stdin, {doc} on stdout.",
        discussion: """
            Example:
              echo '{"doc":"hello orld","op":[6,"w",4]}' | whalesim ot apply
              {"doc":"hello world"}
              echo '{"doc":"hello orld","op":{"n":[6,0,4],"s":["","w",""]}}' \\
                | whalesim ot apply
              {"doc":"hello world"}
            """
    )

    func run() throws {
        try OTInput.run(command: "apply") { input in
            let object = try input.object(keys: ["doc", "op"])
            let doc = try object.string("doc")
            let op = try object.operation("op", spanning: doc, named: "the document")
            return ["doc": .string(try OTInput.applying(op, to: doc, key: "op"))]
        }
    }
}
