/// The names of the switchable code faults, for validating scenario files.
public enum FaultCatalog {
    public static let names: [String] = [
        "client-tie-priority", "utf8-length-units", "grapheme-length-units", "compose-sign-error",
        "reconnect-drops-unacked", "server-drops-slow-client", "server-applies-resend-twice",
        "remote-cursor-wrong-rule", "revision-reset-on-empty",
    ]
}
