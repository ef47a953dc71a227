import WhaleProtocol

extension Scenario {
    /// Why this scenario cannot exercise `fault`, in one line, or nil when it can. Decided from
    /// the scenario alone (its clients, protocol, text, action mix and nemeses), so
    /// `whalesim simulate --fault F` can say a passing run proved nothing about F.
    ///
    /// ```swift
    /// try BuiltinScenarios.load("convergence-smoke").cannotExercise(.reconnectDropsUnacked)
    /// // "convergence-smoke has no reconnects (no disconnect or server-restart nemesis, no reconnect action)"
    /// ```
    public func cannotExercise(_ fault: Fault) -> String? {
        let sharesDocuments = clients > documents
        let scriptInserts =
            script?.steps.contains { if case .edit(_, _, let text) = $0.action { !text.isEmpty } else { false } }
            ?? false
        let scriptDisconnects =
            script?.steps.contains {
                if case .disconnect = $0.action { true } else if case .serverCrash = $0.action { true } else { false }
            } ?? false
        let scriptPowerLoss = script?.steps.contains { $0.action == .serverCrash(powerLoss: true) } ?? false
        let inserts = mix[.typingBurst] + mix[.paste] + mix[.samePositionInsert] > 0 || scriptInserts
        // A script's own inserts count as its text: a reproducer cut from a fresh live note
        // starts empty (alphabet ascii) and types what the live users typed.
        let scriptText =
            script?.steps.reduce(into: "") { text, step in
                if case .edit(_, _, let inserted) = step.action { text += inserted }
            } ?? ""
        let onlyASCII =
            alphabet == .ascii && initialText.unicodeScalars.allSatisfy(\.isASCII)
            && scriptText.unicodeScalars.allSatisfy(\.isASCII)
        let noClusters =
            alphabet == .ascii && initialText.count == initialText.unicodeScalars.count
            && scriptText.count == scriptText.unicodeScalars.count
        let reconnects =
            nemeses.contains { $0.kind == .disconnect || $0.kind == .serverRestart || $0.kind == .powerLoss }
            || mix[.reconnect] > 0 || scriptDisconnects
        let leaves = nemeses.contains { $0.kind == .disconnect } || mix[.reconnect] > 0 || scriptDisconnects
        let noReconnects = "\(name) has no reconnects (no disconnect or server-restart nemesis, no reconnect action)"
        switch fault {
        case .clientTiePriority:
            if !sharesDocuments { return "\(name) has no document shared by two clients, so no concurrent inserts" }
            if !inserts { return "\(name)'s action mix inserts nothing" }
        case .utf8LengthUnits:
            if onlyASCII {
                return "\(name) types only ASCII, where UTF-8 bytes and scalars count the same"
            }
        case .utf8LengthTransform:
            if !sharesDocuments {
                return
                    "\(name) has no document shared by two clients, so no concurrent edits for the server to transform"
            }
            if onlyASCII {
                return "\(name) types only ASCII, where UTF-8 bytes and scalars count the same"
            }
        case .graphemeLengthUnits:
            if noClusters {
                return "\(name) has no grapheme cluster of several scalars (ASCII alphabet)"
            }
        case .composeSignError:
            if ops < 2 || mix[.delete] + mix[.paste] == 0 || !inserts {
                return "\(name) never composes an insert with a later delete (needs inserts, deletes and 2+ ops)"
            }
        case .reconnectDropsUnacked:
            if !reconnects { return noReconnects }
        case .serverAppliesResendTwice:
            if !reconnects { return noReconnects }
            if protocolVersion != 2 { return "\(name) speaks the original protocol, which never resends an op" }
        case .serverDropsSlowClient:
            let slow =
                nemeses.contains { $0.kind == .slowClient || $0.kind == .partition }
                || (script?.steps.contains { $0.action == .slow(true) } ?? false)
            if !slow, queueBound > 8 {
                return
                    "\(name) never fills a link queue (no slow-client or partition nemesis, queue bound \(queueBound) > 8)"
            }
        case .remoteCursorWrongRule:
            if protocolVersion != 2 { return "\(name) speaks the original protocol, which has no remote cursors" }
            if !sharesDocuments { return "\(name) has no document shared by two clients, so no remote cursors" }
            if !checkers.contains(.cursors) { return "\(name) does not run the cursors checker" }
        case .revisionResetOnEmpty:
            if !leaves {
                return "\(name) never has every client leave a document (no disconnect nemesis, no reconnect action)"
            }
        case .ackBeforeDurable:
            if !nemeses.contains(where: { $0.kind == .powerLoss }), !scriptPowerLoss {
                return
                    "\(name) has no power-loss nemesis or step (only a power loss takes what was acknowledged but not yet durable)"
            }
        case .staleRefetchOverwrites, .echoStorm:
            let mutates = ActionMix.Action.allCases.contains { $0.isModel && mix[$0] > 0 }
            if model == nil || !mutates {
                return "\(name) has no model workload (no model section, or no mutations in its mix)"
            }
        case .tokenExpiryLeewayDay, .refreshTokenReuse, .revisionPastHeadAccepted, .sizeLimitOffByOne,
            .rateLimitOffByOne, .noteIdPrefixMatch, .rejoinLosesUpdate:
            return "\(name) is simulated: " + (Self.liveServerOnly(fault) ?? "")
        }
        return nil
    }

    /// Why no simulation can exercise `fault`, for a fault only the live server shows (whalesim
    /// serve --fault, caught by whalesim conform); nil for every other fault.
    public static func liveServerOnly(_ fault: Fault) -> String? {
        switch fault {
        case .tokenExpiryLeewayDay:
            "the simulator has no access tokens; only the live server checks them (conform: security.token-expired-just-now)"
        case .refreshTokenReuse:
            "the simulator has no refresh tokens; only the live server's /api/user/refresh exchanges them (conform: security.refresh-token-reused)"
        case .revisionPastHeadAccepted:
            "its clients send only revisions the server gave them, never one past the head; only a scripted frame does (conform: security.bad-revision-one-past-head)"
        case .sizeLimitOffByOne:
            "its messages travel decoded, with no size limit; only the live server counts a message's bytes (conform: security.size-at-limit-and-one-over)"
        case .rateLimitOffByOne:
            "its clients are never rate limited; only the live server's sockets are (conform: security.rate-at-burst-and-just-over)"
        case .noteIdPrefixMatch:
            "it has one organization, so no other organization's note to let in; only the live server authorizes ids (conform: security.note-id-one-character-off)"
        case .rejoinLosesUpdate:
            "each of its clients is its own user, whose pool socket leaves before it rejoins, so no user is ever in a pool twice (conform: model.pool-rejoin-within-one-update)"
        default: nil
        }
    }
}

extension FaultCatalog {
    /// The built-in scenarios that can exercise `fault`.
    public static func scenarios(exercising fault: Fault) -> [String] {
        BuiltinScenarios.names.filter { name in
            guard let scenario = try? BuiltinScenarios.scenario(named: name) else { return false }
            return scenario.cannotExercise(fault) == nil
        }
    }
}
