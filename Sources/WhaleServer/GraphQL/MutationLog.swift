import Foundation
import NIOConcurrencyHelpers
import WhaleModel

/// The model mutations one GraphQL request ran, for the `Whalesim-Protocol: 2` response
/// extension (`extensions.whalesim.mutations`). The load runner drives `ModelClient` against
/// the live server and needs what the simulator sees for free: each reply's server `order` and
/// pool `updates`, and the records persisted (the simulator's `modelApply` lines).
///
/// One per request, made only when the header asks for it; ``ModelHub/mutate(_:caller:senderID:log:)``
/// appends to it. Refused mutations add nothing, and neither does `saveNote` (an OT op).
final class MutationLog: Sendable {
    /// One applied mutation, as it goes into the response.
    struct Entry: Encodable, Sendable {
        /// Encoded as a nested object by `JSONEncoder` (the runner decodes it back).
        var reply: MutationReply
        /// ``ModelRecord/line`` of each record the mutation persisted, sorted.
        var written: [String]
    }

    /// The request header that asks for the extension, and the only value that does.
    static let header = "Whalesim-Protocol"
    static let headerValue = "2"

    private let entries = NIOLockedValueBox<[Entry]>([])

    /// Mutations run one after another within a request (GraphQL's rule), so appending as each
    /// one completes keeps execution order.
    func append(_ entry: Entry) { entries.withLockedValue { $0.append(entry) } }

    var all: [Entry] { entries.withLockedValue { $0 } }

    /// `body` (an encoded `GraphQLResult`, a JSON object) with a top-level
    /// `"extensions": {"whalesim": {"mutations": [...]}}` added. The original bytes are kept as
    /// they are: the member is spliced in before the closing brace, not re-encoded.
    func splice(into body: Data) throws -> Data {
        struct Whalesim: Encodable { var mutations: [Entry] }
        struct Extensions: Encodable { var whalesim: Whalesim }
        let extensions = try JSONEncoder.sortedKeys.encode(Extensions(whalesim: Whalesim(mutations: all)))
        var bytes = Array(body)
        while let last = bytes.last, last != UInt8(ascii: "}") { bytes.removeLast() }  // trailing whitespace
        guard !bytes.isEmpty else { throw GraphQLResolverError(message: "the GraphQL result is not a JSON object") }
        bytes.removeLast()
        let empty =
            bytes.last {
                ![UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r")].contains($0)
            } == UInt8(ascii: "{")
        var out = Data(bytes)
        out.append(contentsOf: Array((empty ? "" : ",").utf8) + Array(#""extensions":"#.utf8))
        out.append(extensions)
        out.append(UInt8(ascii: "}"))
        return out
    }
}
