import ArgumentParser
import WhaleOT

/// `whalesim ot compose`: `{doc, a, b}` → `{ab}`, b applying to the result of a.
struct OTComposeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compose",
        abstract: "Compose a then b into one operation: {doc, a, b} on stdin, {ab} on stdout.",
        discussion: """
            a applies to doc; b applies to the result of a.

            Example:
              echo '{"doc":"abc","a":[3,"d"],"b":[-1,3]}' | whalesim ot compose
              {"ab":[-1,2,"d"]}
            """
    )

    func run() throws {
        try OTInput.run(command: "compose") { input in
            let object = try input.object(keys: ["doc", "a", "b"])
            let doc = try object.string("doc")
            let a = try object.operation("a", spanning: doc, named: "the document")
            let afterA = try OTInput.applying(a, to: doc, key: "a")
            let b = try object.operation("b", spanning: afterA, named: "the document after a")
            do {
                return ["ab": .operation(try Operation.compose(a, b))]
            } catch {
                throw BadInput("cannot compose a and b: \(error)")
            }
        }
    }
}
