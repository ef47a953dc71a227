/// What a virtual client does next, by weight. Scenario keys are kebab-case
/// (`typing-burst: 40`); a missing key weighs 0.
public struct ActionMix: Hashable, Sendable {
    public enum Action: String, Hashable, Sendable, CaseIterable {
        /// A few keystrokes in a row at the caret, one op each.
        case typingBurst = "typing-burst"
        /// One insert of several scalars (replacing the selection if any).
        case paste
        /// Backspace, or a range delete.
        case delete
        /// A new selection, forwards or backwards.
        case select
        /// An insert at the document's hot spot, where other clients insert too.
        case samePositionInsert = "same-position-insert"
        /// The caret moves a little.
        case cursorMove = "cursor-move"
        /// Think time, nothing else.
        case idle
        /// The client drops its connection and reconnects a little later.
        case reconnect
        /// The caret jumps anywhere in the note: the next edit lands far from the last one
        /// (long gap moves in a large note's `TextDocument`).
        case jump
        // Model workloads (a scenario with a `model` section): board clients move, track,
        // untrack and assign accounts; account-page clients move contacts and work on tasks.
        /// A card moves to another column of the board (`saveAccounts` with that one account).
        case moveAccount = "move-account"
        /// A contact card moves on the account page (`saveContacts`).
        case moveContact = "move-contact"
        /// A new task with a client-generated id (`saveTask`).
        case createTask = "create-task"
        /// A task is ticked done, or back (`saveTask`).
        case completeTask = "complete-task"
        /// A task gets another assignee (`createTaskAssignmentEntry`).
        case reassignTask = "reassign-task"
        /// A task is deleted (`saveTask` with `deletedAt`).
        case deleteTask = "delete-task"
        /// An account of the organization joins the user's board (`applyAccountTrackingChanges`).
        case track
        /// An account leaves the user's board.
        case untrack
        /// An account gets another assignee (`createAccountAssignmentEntry`).
        case assignAccount = "assign-account"

        /// Whether this is a model workload (it needs the scenario's `model` section).
        public var isModel: Bool {
            switch self {
            case .moveAccount, .moveContact, .createTask, .completeTask, .reassignTask, .deleteTask, .track, .untrack,
                .assignAccount:
                true
            default: false
            }
        }
    }

    /// Weights in `Action.allCases` order.
    public var weights: [Int]

    public init(_ pairs: [Action: Int] = [:]) {
        weights = Action.allCases.map { pairs[$0] ?? 0 }
    }

    public static let standard = ActionMix([
        .typingBurst: 40, .paste: 8, .delete: 15, .select: 8,
        .samePositionInsert: 10, .cursorMove: 10, .idle: 9,
    ])

    public subscript(action: Action) -> Int {
        get { weights[Action.allCases.firstIndex(of: action)!] }
        set { weights[Action.allCases.firstIndex(of: action)!] = newValue }
    }

    public var choice: WeightedChoice<Action> {
        WeightedChoice(Array(zip(Action.allCases, weights)))
    }
}
