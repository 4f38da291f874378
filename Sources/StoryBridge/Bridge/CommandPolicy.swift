/// How long the router waits for a command's answer before answering a 504 `Failure` itself.
public enum CommandDeadline: Sendable, Hashable {
    /// The bridge's default (10 s unless configured).
    case bridgeDefault
    /// A deadline of its own.
    case after(Duration)
    /// No deadline: the command answers when something outside happens (a viewer closes a media file).
    case unlimited
}

/// How the router runs one command: the single choice a module makes per command.
///
/// - ``fromMemory``: the handler answers from the host's memory alone (the viewer's state, the
///   library); it never waits on disk, the network or the viewer, so it cannot hang. When nothing
///   else of the page is waiting, the request is answered on the connection's reading task, with no
///   task, queue or deadline: the cheapest path. Otherwise it waits its turn like an ordered one.
/// - ``ordered(_:)``: the page's requests are answered in the order sent, one after another, so a
///   `setCustomEvent` followed by a `getCustomEventByKey` sees its own write. A handler stuck past
///   its deadline is answered 504 and the page's later requests go on without it.
/// - ``concurrent(_:)``: the request runs as a task of its own, so a handler that waits on the
///   viewer or the network does not hold up the page's later requests.
///
/// `.ordered` and `.concurrent` without a deadline mean the bridge's default deadline.
public enum CommandPolicy: Sendable, Hashable {
    /// Answered from memory, on the reading task when the page has nothing else waiting.
    case fromMemory
    /// Answered in the order the page sent it, within `deadline`.
    case ordered(CommandDeadline)
    /// Answered by a task of its own, within `deadline`, without holding up later requests.
    case concurrent(CommandDeadline)

    /// In order, within the bridge's default deadline (the policy of a command that says nothing).
    public static var ordered: CommandPolicy { .ordered(.bridgeDefault) }
    /// On a task of its own, within the bridge's default deadline.
    public static var concurrent: CommandPolicy { .concurrent(.bridgeDefault) }

    /// The deadline the policy asks for (`.bridgeDefault` for ``fromMemory``, which only has one
    /// when it has to wait behind an ordered request).
    public var deadline: CommandDeadline {
        switch self {
        case .fromMemory: return .bridgeDefault
        case .ordered(let deadline), .concurrent(let deadline): return deadline
        }
    }

    /// The same policy with another deadline.
    func with(deadline: CommandDeadline) -> CommandPolicy {
        switch self {
        case .fromMemory: return .fromMemory
        case .ordered: return .ordered(deadline)
        case .concurrent: return .concurrent(deadline)
        }
    }
}
