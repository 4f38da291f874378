/// One command of a module: its name, how the router runs it (``CommandPolicy``), and the
/// handler that answers it.
///
/// A handler gets the request (with its `Data`) and the ``BridgeContext``. It returns the answer's
/// `Data` (a 200 `Success`); a thrown ``BridgeError`` becomes a `Failure` with its code; any other
/// error becomes a 500 `Failure` naming the module. A handler that needs its own `Status`,
/// `ErrorCode` and `ErrorMessage` is made with ``replying(_:_:handler:)`` and returns a
/// ``ModuleReply``.
///
/// ```swift
/// BridgeCommand("getClientCard", .fromMemory) { request, context in
///     ["name": .string(try cards.name(of: try request.int("clientId")))]
/// }
/// BridgeCommand("syncClients", .concurrent(.after(.seconds(30))), handler: syncClients)
/// ```
public struct BridgeCommand: Sendable {
    /// A handler that returns the answer's `Data`.
    public typealias DataHandler = @Sendable (BridgeRequest, BridgeContext) async throws -> JSONValue
    /// A handler that returns the whole answer.
    public typealias ReplyHandler = @Sendable (BridgeRequest, BridgeContext) async throws -> ModuleReply

    /// What a command's code returns.
    enum Handler: Sendable {
        case data(DataHandler)
        case reply(ReplyHandler)
    }

    /// The command's name, as content sends it.
    public let name: String
    /// How the router runs it.
    public let policy: CommandPolicy
    let handler: Handler

    /// A command answered by `handler`, whose value becomes the `Data` of a 200 `Success`.
    /// Without a policy the command is ``CommandPolicy/ordered``.
    public init(_ name: String, _ policy: CommandPolicy = .ordered, handler: @escaping DataHandler) {
        self.name = name
        self.policy = policy
        self.handler = .data(handler)
    }

    /// A command answered by `handler` with full control of `Status`, `ErrorCode` and
    /// `ErrorMessage` (the HTTP module passes the remote status through this way).
    public static func replying(
        _ name: String, _ policy: CommandPolicy = .ordered, handler: @escaping ReplyHandler
    ) -> BridgeCommand {
        BridgeCommand(name: name, policy: policy, handler: .reply(handler))
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
        }
    }
}
