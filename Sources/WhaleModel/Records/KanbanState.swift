/// A kanban column, with the exact `state` strings of PROTOCOL.md §1. Accounts use all four,
/// contacts the first three. Records keep `state` as the raw `String?` the wire carries; null or
/// an unknown string reads as `Ready`, and writes must use one of these strings.
///
/// ```swift
/// KanbanState.reading(nil)             // .ready
/// KanbanState.reading("In Progress")   // .inProgress
/// KanbanState.worked.rawValue          // "Worked"
/// ```
public enum KanbanState: String, Codable, Hashable, Sendable, CaseIterable {
    case ready = "Ready"
    case inProgress = "In Progress"
    case worked = "Worked"
    case opportunity = "Opportunity"

    /// The columns of the contacts board.
    public static let contactColumns: [KanbanState] = [.ready, .inProgress, .worked]

    /// How a stored `state` reads: null or unknown is `Ready`.
    public static func reading(_ state: String?) -> KanbanState {
        state.flatMap(KanbanState.init(rawValue:)) ?? .ready
    }
}
