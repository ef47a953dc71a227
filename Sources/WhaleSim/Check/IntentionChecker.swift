import WhaleOT

/// No lost or invented edits, with a shadow model that gives every inserted scalar an
/// identity (the op's place in the log and its author): the server's applied (transformed) ops
/// are replayed on identities.
///
/// - every applied op was sent by a client, and inserts exactly the text that client sent;
/// - no op is applied twice (its text would be doubled);
/// - every acknowledged op is in the server's final history (else its edit was lost);
/// - the server's final text is exactly the shadow's (nothing appears that nobody typed);
/// - every applied op deletes only scalars its author had seen (the initial text, its own earlier
///   ops, or ops before the revision it was sent against), and no more scalars than its user's
///   edits deleted (transform and compose can only shrink a delete): a too-wide delete is caught
///   here, with the scalars it took, not only later through convergence;
/// - protocol 2, after healing: every invoked op was acknowledged (none silently dropped),
///   and none was abandoned (refused by the server, or dropped by its client).
///   Protocol 1 loses unacknowledged edits on reconnect by design: each loss is a *finding*
///   (which client, which op, what text), reported without changing the verdict.
///
/// One pass, with memory bounded by the notes and the clients, not by the run's length: an op is
/// kept (``IntentionOp``) only while it is in flight, until it is acknowledged and its apply has
/// left the log's window (``AppliedLog``), where the per-op checks run on it and the shadow moves
/// past it. What is left at the end was still in flight, refused or lost. A second apply of an op
/// is "applied twice" while the first is among the note's last window of folded ops; beyond that
/// its record is gone and the second apply is reported as an op no client sent (invalid still).
public enum IntentionChecker {
    public static func check(_ history: History) -> CheckResult {
        judge(history).result
    }

    /// The check, and the most it held at once. `windowSize`: ops kept per note (tests make it small).
    static func judge(_ history: History, windowSize: Int? = nil) -> (result: CheckResult, footprint: CheckFootprint) {
        var pass = IntentionPass(history: history, windowSize: windowSize)
        for entry in history.events { pass.consume(entry) }
        return (pass.finish(), pass.footprint)
    }
}
