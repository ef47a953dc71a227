/// After every fault heals and the workload stops, the run must go quiet (nothing in flight,
/// nothing pending) within the tick budget, and the messages it took must stay within a
/// bound per client action (an echo storm or resend loop breaks it).
public enum LivenessChecker {
    /// Messages allowed per client action and client: an edit costs one `docChange` plus one
    /// broadcast per client; reconnects and cursors add a few more.
    public static let messagesPerActionPerClient = 6

    public static func check(_ history: History) -> CheckResult {
        var evidence = Evidence()
        var sawQuiescence = false
        for entry in history.events {
            switch entry.event {
            case .quiescence(let reached, let ticks):
                sawQuiescence = true
                if !reached {
                    evidence.invalid(
                        "no quiescence within \(ticks) ticks after healing: messages or pending ops remain")
                }
            case .traffic(let messages, let actions, let clients):
                let bound = 100 + messagesPerActionPerClient * max(actions, 1) * (clients + 1)
                if messages > bound {
                    evidence.invalid(
                        "\(messages) messages for \(actions) client actions and \(clients) clients (bound \(bound)): a message loop"
                    )
                }
            default: break
            }
        }
        if !sawQuiescence { evidence.unknown("the run ended before the liveness phase") }
        return evidence.result(.liveness)
    }
}
