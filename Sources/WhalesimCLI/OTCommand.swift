import ArgumentParser

/// `whalesim ot ...`: the OT core as tools, for a user inspecting a failed run's history.
/// Each subcommand reads one JSON object on stdin and prints one on stdout; operations are
/// accepted in the ot.js form (`[6, "w", -2, 4]`) or the Whaler wire form
/// (`{"n": [6, 0, 4], "s": ["", "w", ""]}`) and printed in the ot.js form. Offsets count
/// Unicode scalars. Bad input: one line on stderr, exit 64.
struct OTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ot",
        abstract: "Apply, compose and transform operations, and move cursors (JSON on stdin and stdout).",
        discussion: """
            Operations are ot.js arrays (positive int = retain, string = insert, negative int = \
            delete) or Whaler wire objects {"n": [...], "s": [...]}; output uses ot.js arrays. \
            Positions count Unicode scalars. Bad input prints one line on stderr and exits 64.

            Example:
              echo '{"doc":"hello orld","op":[6,"w",4]}' | whalesim ot apply
              {"doc":"hello world"}
            """,
        subcommands: [OTApplyCommand.self, OTComposeCommand.self, OTTransformCommand.self, OTCursorCommand.self]
    )
}
