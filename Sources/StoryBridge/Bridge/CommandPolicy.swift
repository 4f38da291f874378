/// How long the router waits for a command's answer before answering a 504 `Failure` itself.
public enum CommandDeadline: Sendable, Hashable {
    /// The bridge's default (10 s unless configured).
    case bridgeDefault
    /// A deadline of its own.
    case after(Duration)
    /// No deadline: the command answers when something outside happens (a viewer closes a media file).
    case unlimited
}

/// What a command answered from memory does to the host's memory.
public enum MemoryUse: Sendable, Hashable {
    /// It only reads: it changes no state, records no analytics and sends no event. A page load
    /// that keeps its session may have such requests answered before its own records are written.
    case readsOnly
    /// It changes the viewer's state (chrome flags, outbound deep-link parameters...) or sends an
    /// event.
    case changesState
}

/// How the router runs one command: the single choice a module makes per command.
///
/// - ``fromMemory(_:)``: the handler answers from the host's memory alone (the viewer's state, the
///   library); it never waits on disk, the network or the viewer, so it cannot hang. When nothing
///   else of the page is waiting, the request is answered on the connection's reading task, with no
///   task, queue or deadline: the cheapest path. Otherwise it waits its turn like an ordered one.
///   ``readFromMemory`` says the command also changes nothing (``MemoryUse/readsOnly``).
/// - ``ordered(_:)``: the page's requests are answered in the order sent, one after another, so a
///   `setCustomEvent` followed by a `getCustomEventByKey` sees its own write. A handler stuck past
///   its deadline is answered 504 and the page's later requests go on without it.
/// - ``concurrent(_:)``: the request runs as a task of its own, so a handler that waits on the
///   viewer or the network does not hold up the page's later requests.
///
/// `.ordered` and `.concurrent` without a deadline mean the bridge's default deadline.
public enum CommandPolicy: Sendable, Hashable {
    /// Answered from memory, on the reading task when the page has nothing else waiting.
    case fromMemory(MemoryUse)
    /// Answered in the order the page sent it, within `deadline`.
    case ordered(CommandDeadline)
    /// Answered by a task of its own, within `deadline`, without holding up later requests.
    case concurrent(CommandDeadline)

    /// Answered from memory, possibly changing it (``MemoryUse/changesState``).
    public static var fromMemory: CommandPolicy { .fromMemory(.changesState) }
    /// Answered from memory, changing nothing (``MemoryUse/readsOnly``).
    public static var readFromMemory: CommandPolicy { .fromMemory(.readsOnly) }
    /// In order, within the bridge's default deadline (the policy of a command that says nothing).
    public static var ordered: CommandPolicy { .ordered(.bridgeDefault) }
    /// On a task of its own, within the bridge's default deadline.
    public static var concurrent: CommandPolicy { .concurrent(.bridgeDefault) }

    /// The deadline the policy asks for (`.bridgeDefault` for ``fromMemory``, which only has one
    /// when it has to wait behind an ordered request).
    public var deadline: CommandDeadline {
        switch self {
        case .fromMemory(_): return .bridgeDefault
        case .ordered(let deadline), .concurrent(let deadline): return deadline
        }
    }

    /// Whether the command only reads the host's memory (``MemoryUse/readsOnly``).
    public var isReadOnly: Bool { self == .readFromMemory }

    /// The same policy with another deadline.
    func with(deadline: CommandDeadline) -> CommandPolicy {
        switch self {
        case .fromMemory(let use): return .fromMemory(use)
        case .ordered: return .ordered(deadline)
        case .concurrent: return .concurrent(deadline)
        }
    }
}
