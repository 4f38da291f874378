/// How long the router waits for a command's answer before answering a 504 `Failure` itself.
public enum CommandDeadline: Sendable, Hashable {
    /// The bridge's default (10 s unless configured).
    case bridgeDefault
    /// A deadline of its own.
    case after(Duration)
    /// No deadline, for a concurrent command that answers when the person closes something (a media
    /// file, the media library, the close dialog): it runs as a task of its own, counts against the
    /// connection's requests in flight and is cancelled when its page goes away. An ordered command
    /// without a deadline would hold up the page's later requests as long as it waits: do not.
    case unlimited
}

/// What a command answered from memory does to the host's memory.
public enum MemoryUse: Sendable, Hashable {
    /// It only reads: it changes no state, records no analytics and sends no event. A page load
    /// that keeps its session may have such requests answered before its own records are written.
    case readsOnly
    /// It changes state held in memory (the module's own, or something the page reports) without
    /// awaiting anything.
    case changesState
}

/// How the router runs a command whose handler may await, as chosen in
/// ``BridgeCommand/init(_:_:handler:)`` and ``BridgeCommand/replying(_:_:handler:)``: always with a
/// deadline. There is no memory case: a memory command is made with
/// ``BridgeCommand/fromMemory(_:_:answer:)``, whose closure is synchronous.
public enum AwaitingPolicy: Sendable, Hashable {
    /// Answered in the order the page sent it, within `deadline`.
    case ordered(CommandDeadline)
    /// Answered by a task of its own, within `deadline`, without holding up later requests.
    case concurrent(CommandDeadline)

    /// In order, within the bridge's default deadline (the policy of a command that says nothing).
    public static var ordered: AwaitingPolicy { .ordered(.bridgeDefault) }
    /// On a task of its own, within the bridge's default deadline.
    public static var concurrent: AwaitingPolicy { .concurrent(.bridgeDefault) }
}

/// How the router runs one command, as ``Bridge/policy(for:)`` reports it.
///
/// - ``fromMemory(_:)``: made with ``BridgeCommand/fromMemory(_:_:answer:)``, whose synchronous
///   closure cannot hang. When nothing else of the page is waiting, the request is answered on the
///   connection's reading task, with no task, queue or deadline; otherwise it waits its turn like
///   an ordered one. The ``MemoryUse`` says whether it only reads.
/// - ``ordered(_:)``: the page's requests are answered in the order sent, one after another, so a
///   `setCustomEvent` followed by a `getCustomEventByKey` sees its own write. A handler stuck past
///   its deadline is answered 504 and the page's later requests go on without it.
/// - ``concurrent(_:)``: the request runs as a task of its own, so a handler that waits on the
///   viewer or the network does not hold up the page's later requests.
///
public enum CommandPolicy: Sendable, Hashable {
    /// Answered from memory by a synchronous closure.
    case fromMemory(MemoryUse)
    /// Answered in the order the page sent it, within `deadline`.
    case ordered(CommandDeadline)
    /// Answered by a task of its own, within `deadline`, without holding up later requests.
    case concurrent(CommandDeadline)

    /// The policy of a command whose handler may await.
    init(_ awaiting: AwaitingPolicy) {
        switch awaiting {
        case .ordered(let deadline): self = .ordered(deadline)
        case .concurrent(let deadline): self = .concurrent(deadline)
        }
    }

    /// The deadline the policy asks for (`.bridgeDefault` for ``fromMemory(_:)``, which only
    /// ``Bridge/handle(_:context:)`` runs with one).
    public var deadline: CommandDeadline {
        switch self {
        case .fromMemory(_): return .bridgeDefault
        case .ordered(let deadline), .concurrent(let deadline): return deadline
        }
    }

    /// Whether the command only reads the host's memory (`.fromMemory(.readsOnly)`).
    public var isReadOnly: Bool { self == .fromMemory(.readsOnly) }

    /// The same policy with another deadline.
    func with(deadline: CommandDeadline) -> CommandPolicy {
        switch self {
        case .fromMemory(let use): return .fromMemory(use)
        case .ordered: return .ordered(deadline)
        case .concurrent: return .concurrent(deadline)
        }
    }
}
