import WhaleLoad

/// Where a user's sockets come from: the live runner opens real websockets (``live``, an
/// ``EpollWebSocket`` on the user's loop or a ``LeanSocket`` on NIO's); a test hands in sockets
/// that carry frames to a sans-I/O server in memory, so a note session, a model page and a whole
/// virtual user run through a reconnect, a refused op and a resync without a port.
///
/// ```swift
/// let sockets = NoteSocketFactory { url, headers, loop, onBuffer in MySocket(url, onBuffer) }
/// let socket = sockets.open(url: url, headers: headers, loop: nil) { bytes in ... }
/// ```
struct NoteSocketFactory: Sendable {
    typealias Open =
        @Sendable (
            _ url: String, _ headers: [(String, String)], _ loop: EpollClientLoop?,
            _ onBuffer: @escaping @Sendable (UnsafeRawBufferPointer) -> Void
        ) -> any NoteSocket

    let open: Open

    init(_ open: @escaping Open) { self.open = open }

    /// A socket to `url` whose every message reaches `onBuffer` as bytes valid only during the call.
    func open(
        url: String, headers: [(String, String)], loop: EpollClientLoop?,
        onBuffer: @escaping @Sendable (UnsafeRawBufferPointer) -> Void
    ) -> any NoteSocket {
        open(url, headers, loop, onBuffer)
    }

    /// Real websockets (`openNoteSocket`): on `loop` when one is given, on NIO's loops otherwise.
    static let live = NoteSocketFactory { url, headers, loop, onBuffer in
        openNoteSocket(url: url, headers: headers, loop: loop, onBuffer: onBuffer)
    }
}
