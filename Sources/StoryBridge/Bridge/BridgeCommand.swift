/// One command of a module: its name, how the router runs it (``CommandPolicy``), and the
/// handler that answers it.
///
/// A handler gets the request (with its `Data`) and the ``BridgeContext``. It returns the answer's
/// `Data` (a 200 `Success`); a thrown ``BridgeError`` becomes a `Failure` with its code; any other
/// error becomes a 500 `Failure` naming the module. A handler that needs its own `Status`,
/// `ErrorCode` and `ErrorMessage` is made with ``replying(_:_:handler:)`` and returns a
/// ``ModuleReply``. A command whose one lasting effect is a database write (an analytics record)
/// is made with ``recording(_:deadline:handler:)``: its handler prepares the write and the router
/// commits the records a page sends together in one transaction.
///
/// A memory command is made with ``fromMemory(_:_:answer:)`` only, whose closure is synchronous
/// (``AwaitingPolicy`` has no memory case): it cannot await, and every command that can has a deadline.
///
/// ```swift
/// BridgeCommand.fromMemory("getClientCard") { request, context in
///     ["name": .string(try cards.name(of: try request.int("clientId")))]
/// }
/// BridgeCommand("syncClients", .concurrent(.after(.seconds(30))), handler: syncClients)
/// ```
public struct BridgeCommand: Sendable {
    /// A handler that returns the answer's `Data`.
    public typealias DataHandler = @Sendable (BridgeRequest, BridgeContext) async throws -> JSONValue
    /// A handler that returns the whole answer.
    public typealias ReplyHandler = @Sendable (BridgeRequest, BridgeContext) async throws -> ModuleReply
    /// A handler that prepares the request's one database write (``PreparedRecord``).
    public typealias RecordHandler = @Sendable (BridgeRequest, BridgeContext) async throws -> PreparedRecord
    /// An answer from memory when memory holds it: the `Data`, or `nil` to leave the request to
    /// the command's handler (see ``answeringFromMemory(_:)``).
    public typealias MemoryAnswer = @Sendable (BridgeRequest, BridgeContext) throws -> JSONValue?

    /// What a command's code returns.
    enum Handler: Sendable {
        case data(DataHandler)
        case reply(ReplyHandler)
        case record(RecordHandler)
    }

    /// The command's name, as content sends it.
    public let name: String
    /// How the router runs it.
    public let policy: CommandPolicy
    let handler: Handler
    /// The command's answer from memory, tried before the page's queue (``answeringFromMemory(_:)``):
    /// the `Data`, with its wire text when the module keeps it written.
    private(set) var memoryAnswer: (@Sendable (BridgeRequest, BridgeContext) throws -> ModuleReply?)?

    /// A command answered by `handler`, whose value becomes the `Data` of a 200 `Success`.
    /// Without a policy the command is ``AwaitingPolicy/ordered``.
    public init(_ name: String, _ policy: AwaitingPolicy = .ordered, handler: @escaping DataHandler) {
        self.init(name: name, policy: CommandPolicy(policy), handler: .data(handler))
    }

    /// A command answered by `handler` with full control of `Status`, `ErrorCode` and
    /// `ErrorMessage` (the HTTP module passes the remote status through this way).
    public static func replying(
        _ name: String, _ policy: AwaitingPolicy = .ordered, handler: @escaping ReplyHandler
    ) -> BridgeCommand {
        BridgeCommand(name: name, policy: CommandPolicy(policy), handler: .reply(handler))
    }

    /// A command whose one lasting effect is a database write, prepared by `handler` (checks of the
    /// request's `Data` throw from it, as from any handler) and committed by the router. The
    /// command is ordered (``CommandPolicy/ordered(_:)`` with `deadline`): the records a page sends
    /// together are committed in one transaction and answered in the order sent, each once its
    /// transaction has committed, and the page's next other request starts only after them.
    ///
    /// ```swift
    /// BridgeCommand.recording("rateSlide") { request, context in
    ///     let stars = try request.int("stars")
    ///     let database = context.sessions.store.database
    ///     return PreparedRecord(database: database, data: ["stars": .int(stars)]) { db in
    ///         try db.execute(sql: "INSERT INTO rating (stars) VALUES (?)", arguments: [stars])
    ///     }
    /// }
    /// ```
    public static func recording(
        _ name: String, deadline: CommandDeadline = .bridgeDefault, handler: @escaping RecordHandler
    ) -> BridgeCommand {
        BridgeCommand(name: name, policy: .ordered(deadline), handler: .record(handler))
    }

    /// A command answered from memory by `answer`, a synchronous closure that cannot hang: it reads
    /// (or, with ``MemoryUse/changesState``, changes) memory only, and returns the answer's `Data`
    /// or throws a ``BridgeError``. The policy is ``CommandPolicy/fromMemory(_:)`` with `use`. When
    /// nothing of the page is waiting, the router calls `answer` on the task that reads the
    /// connection as a plain function call, with no task, queue, deadline or suspension: the
    /// cheapest path a command has. While the page waits for its answers that task runs on the
    /// socket's event loop (docs/ARCHITECTURE.md, "Where it runs"), so `answer` must return in
    /// microseconds and never block. A handler that must await is an ordered or concurrent command.
    ///
    /// ```swift
    /// BridgeCommand.fromMemory("getCurrentSlideName") { _, context in
    ///     ["slide": .string(context.viewer.latest(\.currentSlide) ?? "")]
    /// }
    /// ```
    public static func fromMemory(
        _ name: String, _ use: MemoryUse = .readsOnly,
        answer: @escaping @Sendable (BridgeRequest, BridgeContext) throws -> JSONValue
    ) -> BridgeCommand {
        // The handler (for ``Bridge/handle(_:context:)``) and the answer from memory are the same
        // function: memory always holds the answer, so a connection never runs the handler.
        BridgeCommand(name: name, policy: .fromMemory(use), handler: .data { try answer($0, $1) })
            .answeringFromMemory { try answer($0, $1) }
    }

    /// ``fromMemory(_:_:answer:)`` for an answer kept in memory already written as JSON (sent as
    /// it is).
    static func fromMemoryWritten(
        _ name: String, _ use: MemoryUse = .readsOnly,
        answer: @escaping @Sendable (BridgeRequest, BridgeContext) throws -> EncodedJSON
    ) -> BridgeCommand {
        BridgeCommand(name: name, policy: .fromMemory(use), handler: .data { try answer($0, $1).value })
            .answeringFromMemory(encoded: { try answer($0, $1) })
    }

    /// The same command, answered by `answer` without the page's queue when that is possible: an
    /// ordered command whose data usually sits in memory (a mirror of the database), such as
    /// `getCustomEventByKey`.
    ///
    /// When no earlier request of the page is waiting (so the page's own earlier writes have
    /// committed, and their after-commit hooks have run), the router calls `answer`: on the task
    /// that reads the connection, with no queue, task or deadline, when the page's queue is idle;
    /// otherwise by the page's worker, when the request's turn comes. It returns the answer's `Data`,
    /// or throws a ``BridgeError`` to fail the request (a key the mirror knows to be absent: 404),
    /// as the handler would; or it returns `nil` when memory does not hold what is asked, and the
    /// request then goes through the queue to the handler as usual. `answer` must not block: it
    /// reads memory only.
    public func answeringFromMemory(_ answer: @escaping MemoryAnswer) -> BridgeCommand {
        var command = self
        command.memoryAnswer = { request, context in try answer(request, context).map { ModuleReply(data: $0) } }
        return command
    }

    /// The same, for an answer kept in memory already written as JSON (sent as it is).
    func answeringFromMemory(encoded answer: @escaping @Sendable (BridgeRequest, BridgeContext) throws -> EncodedJSON?) -> BridgeCommand {
        var command = self
        command.memoryAnswer = { request, context in try answer(request, context).map(ModuleReply.init(encoded:)) }
        return command
    }

    /// The record handler of a command made with ``recording(_:deadline:handler:)``.
    var recordHandler: RecordHandler? {
        if case .record(let handler) = handler { return handler }
        return nil
    }

    private init(name: String, policy: CommandPolicy, handler: Handler) {
        self.name = name
        self.policy = policy
        self.handler = handler
    }

    /// Runs the handler.
    func answer(_ request: BridgeRequest, context: BridgeContext) async throws -> ModuleReply {
        switch handler {
        case .data(let handler): return ModuleReply(data: try await handler(request, context))
        case .reply(let handler): return try await handler(request, context)
        case .record(let handler):
            let record = try await handler(request, context)
            try await record.database.write(record.updates)
            return ModuleReply(data: record.data)
        }
    }
}
