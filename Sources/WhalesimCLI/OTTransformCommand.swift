import ArgumentParser
import WhaleOT

/// `whalesim ot transform`: `{doc, a, b}` → `{aPrime, bPrime}`; a has tie priority.
struct OTTransformCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transform",
        abstract: "Transform two concurrent operations: {doc, a, b} on stdin, {aPrime, bPrime} on stdout.",
        discussion: """
            a and b both apply to doc. a has tie priority: when both insert at one position, \
            a's text ends up on the left. apply(apply(doc, a), bPrime) == apply(apply(doc, b), aPrime).

            Example:
              echo '{"doc":"ab","a":[1,"X",1],"b":[1,"Y",1]}' | whalesim ot transform
              {"aPrime":[1,"X",2],"bPrime":[2,"Y",1]}
            """
    )

    func run() throws {
        try OTInput.run(command: "transform") { input in
            let object = try input.object(keys: ["doc", "a", "b"])
            let doc = try object.string("doc")
            let a = try object.operation("a", spanning: doc, named: "the document")
            let b = try object.operation("b", spanning: doc, named: "the document")
            do {
                let (aPrime, bPrime) = try Operation.transform(a, b)
                return ["aPrime": .operation(aPrime), "bPrime": .operation(bPrime)]
            } catch {
                throw BadInput("cannot transform a and b: \(error)")
            }
        }
    }
}
