import ArgumentParser
import Foundation
import WhaleSession

/// `whalesim import-har FILE.har --out FILE`: a browser's HAR export (websocket frames
/// included) as a session file, the same as `whalesim record` writes for the same steps.
struct ImportHARCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-har",
        abstract: "Turn a browser's HAR export (websocket frames included) into a session file.",
        discussion: """
            Reads a HAR 1.2 file as a browser's developer tools export it (Chromium's and Edge's \
            "Save all as HAR with content" keep each websocket's frames as _webSocketMessages) and writes \
            the session file whalesim record would have written for the same steps (docs/sessions.md): \
            events in time order, sessions one per login, secrets replaced by placeholders, owner-only. \
            Requests under /services/ are taken as Salesforce's. Exit codes: 0 written, 64 bad input.

            Examples:
              whalesim import-har whaler.har --out team.session
              whalesim run --replay team.session --users 50
            """
    )

    @Argument(help: "The HAR file.")
    var har: String

    @Option(help: "The session file to write (replaced if it exists).")
    var out: String

    func run() throws {
        guard let data = FileManager.default.contents(atPath: har) else {
            throw BadInput("cannot read \(har)").exit()
        }
        let recording: SessionRecording
        do { recording = try HARImport.recording(from: data, source: har) } catch {
            throw BadInput(error.message).exit()
        }
        do { try recording.write(to: out) } catch { throw BadInput("--out \(out): \(error.message)").exit() }
        let sessions = recording.sessions.filter { $0 != "s0" }.count
        print(
            "\(har): \(recording.events.count) events in \(sessions) session\(sessions == 1 ? "" : "s") written to \(out)"
        )
    }
}
