/// How long the router waits for a module's answer before answering a failure itself.
public enum ModuleDeadline: Sendable, Hashable {
    /// The bridge's default (10 s unless configured).
    case bridgeDefault
    /// A deadline of its own.
    case after(Duration)
    /// No deadline: the module answers when something outside happens (a viewer closes a media file).
    case unlimited
}

/// A native module: it owns a set of commands and answers them.
///
/// Conform to this protocol and register the module on a ``Bridge`` to answer commands that content
/// sends with `StoryCLM.SendCommand` or any built-in command you want to replace:
///
/// ```swift
/// struct GreetingModule: BridgeModule {
///     let name = "Greeting"
///     let commands = ["greet"]
///     func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
///         ["text": .string("Hello, \(try request.string("name"))")]
///     }
/// }
/// bridge.register(GreetingModule())
/// ```
public protocol BridgeModule: Sendable {
    /// A short name used in logs and error messages.
    var name: String { get }
    /// The commands this module answers (current names; legacy aliases are mapped by the router).
    var commands: [String] { get }
    /// How long the router waits for an answer. Defaults to ``ModuleDeadline/bridgeDefault``.
    var deadline: ModuleDeadline { get }
    /// Whether requests may run while later requests of the same page are handled. Defaults to
    /// `false`: a page's requests are handled in the order sent, so a `setCustomEvent` followed by
    /// a `getCustomEventByKey` sees its own write. Modules that wait on the viewer or the network
    /// return `true`.
    var runsConcurrently: Bool { get }
    /// Whether the module answers from the host's memory alone: it never waits on disk, the network
    /// or the viewer, so it cannot hang. The router then answers its requests on the connection's
    /// own task, without a deadline, when nothing else of the page is waiting (the cheapest path).
    /// Defaults to `false`.
    var answersImmediately: Bool { get }

    /// Answers one request. The returned value becomes the response's `Data`; a thrown
    /// ``BridgeError`` becomes a `Failure` with its code; any other error becomes a 500 `Failure`.
    /// `request.command` holds the canonical command name.
    func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue

    /// Answers one request with full control of `Status`, `ErrorCode` and `ErrorMessage` (the HTTP
    /// module passes the remote status through). Defaults to calling ``execute(_:context:)`` and
    /// answering 200 `Success` with its value.
    func reply(_ request: BridgeRequest, context: BridgeContext) async throws -> ModuleReply

    /// The deadline of one command; defaults to ``deadline``. Override when only some commands
    /// wait on the viewer. The router asks this, ``runsConcurrently(_:)`` and
    /// ``answersImmediately(_:)`` once per command, when the module subscribes.
    func deadline(for command: String) -> ModuleDeadline
    /// Whether one command runs concurrently; defaults to ``runsConcurrently``.
    func runsConcurrently(_ command: String) -> Bool
    /// Whether one command answers from memory alone; defaults to ``answersImmediately``.
    func answersImmediately(_ command: String) -> Bool
}

/// A module's full answer: what ``BridgeModule/reply(_:context:)`` returns.
public struct ModuleReply: Sendable, Hashable {
    public var status: ResponseStatus
    public var code: Int
    public var message: String
    public var data: JSONValue

    public init(status: ResponseStatus = .success, code: Int = 200, message: String = "", data: JSONValue) {
        self.status = status
        self.code = code
        self.message = message
        self.data = data
    }
}

extension BridgeModule {
    public func reply(_ request: BridgeRequest, context: BridgeContext) async throws -> ModuleReply {
        ModuleReply(data: try await execute(request, context: context))
    }

    public var deadline: ModuleDeadline { .bridgeDefault }
    public var runsConcurrently: Bool { false }
    public func deadline(for command: String) -> ModuleDeadline { deadline }
    public func runsConcurrently(_ command: String) -> Bool { runsConcurrently }
    public var answersImmediately: Bool { false }
    public func answersImmediately(_ command: String) -> Bool { answersImmediately }
}
