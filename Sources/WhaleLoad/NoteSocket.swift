/// What a virtual client needs of its websocket, whichever loop carries it: ``LeanSocket`` on
/// NIO's event loops, or ``EpollWebSocket`` on an ``EpollClientLoop`` (`live.runner-loop`).
public protocol NoteSocket: AnyObject, Sendable {
    /// Waits for the upgrade at most `timeout`; false (and the attempt abandoned) if it did not come.
    func connected(timeout: Duration) async -> Bool
    /// Queues a text (or binary) frame; frames sent before the upgrade go out once it is done.
    func send(_ text: String, binary: Bool)
    /// The same, from the message's bytes (UTF-8 for a text frame).
    func send(bytes: [UInt8], binary: Bool)
    /// Sends a ping: a live peer answers with a pong (``pongsReceived``).
    func ping()
    /// Pongs received so far.
    var pongsReceived: Int { get }
    /// How it ended, once it has.
    var ending: LiveSocket.Ending? { get }
    /// Calls `then` once the socket has ended, never from inside the call that ended it.
    func onEnded(_ then: @escaping @Sendable () -> Void)
    /// Sends a close frame (1000) and waits for the socket to end.
    func close() async
}

extension LeanSocket: NoteSocket {
    public func send(bytes: [UInt8], binary: Bool) { send(String(decoding: bytes, as: UTF8.self), binary: binary) }
}

/// Opens a note socket on `loop` (an ``EpollWebSocket``) or, with none, on NIO's loops (a
/// ``LeanSocket``). Either way each message reaches `onBuffer` as bytes valid only during the call.
public func openNoteSocket(
    url: String, headers: [(String, String)], maxFrameSize: Int = 1 << 20, loop: EpollClientLoop?,
    onBuffer: @escaping @Sendable (UnsafeRawBufferPointer) -> Void
) -> any NoteSocket {
    if let loop {
        return EpollWebSocket(url: url, headers: headers, maxFrameSize: maxFrameSize, loop: loop, onBuffer: onBuffer)
    }
    return LeanSocket(
        url: url, headers: headers, maxFrameSize: maxFrameSize, onBytes: { bytes in bytes.withUnsafeBytes(onBuffer) })
}
