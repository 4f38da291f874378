/// A native module: a name and a table of commands, each with the handler that answers it and
/// the ``CommandPolicy`` the router runs it by.
///
/// Conform to this protocol and register the module on a ``Bridge`` to answer commands that content
/// sends with `StoryCLM.SendCommand`, or to replace a built-in command:
///
/// ```swift
/// struct GreetingModule: BridgeModule {
///     let name = "Greeting"
///
///     var commands: CommandTable {
///         // Answered from memory: on the connection's own task, the cheapest path.
///         BridgeCommand("greet", .fromMemory) { request, _ in
///             ["text": .string("Hello, \(try request.string("name"))")]   // no name → 400 naming it
///         }
///         // Waits on the network: runs on its own task, 504 after 30 s.
///         BridgeCommand("weather", .concurrent(.after(.seconds(30))), handler: weather)
///     }
///
///     func weather(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
///         ["forecast": .string(try await forecastService.today(for: try request.string("city")))]
///     }
/// }
/// try host.bridge.register(GreetingModule())
/// ```
///
/// The router reads ``commands`` once, when the module subscribes; each handler is then called
/// with `request.command` holding the canonical command name.
public protocol BridgeModule: Sendable {
    /// A short name used in logs and error messages.
    var name: String { get }
    /// The commands this module answers, with their handlers and policies (current names; legacy
    /// aliases are mapped by the router).
    @CommandTableBuilder var commands: CommandTable { get }
}

/// A command's full answer: what a ``BridgeCommand/replying(_:_:handler:)`` handler returns.
public struct ModuleReply: Sendable, Hashable {
    /// The answer's `Status` (`Success` or `Failure`).
    public var status: ResponseStatus
    /// The answer's numeric `Code` (200 for success; the error's code otherwise).
    public var code: Int
    /// The answer's `Message`: empty on success, the reason on failure.
    public var message: String
    /// The answer's `Data`. Setting it replaces whatever written form the module kept.
    public var data: JSONValue {
        get { payload.value }
        set { payload = .value(newValue) }
    }
    /// `data` as the serialiser receives it (see ``BridgeResponse``). Only the value takes part
    /// in equality.
    var payload: AnswerPayload

    /// A reply with the given `Data`; a 200 `Success` with an empty message unless told otherwise.
    public init(status: ResponseStatus = .success, code: Int = 200, message: String = "", data: JSONValue) {
        self.status = status
        self.code = code
        self.message = message
        self.payload = .value(data)
    }

    /// A 200 `Success` whose `Data` the module keeps written.
    init(encoded: EncodedJSON) {
        self.init(data: .null)
        payload = .encoded(encoded)
    }

    /// Equal when status, code, message and `Data` (as a value) are equal.
    public static func == (lhs: ModuleReply, rhs: ModuleReply) -> Bool {
        lhs.status == rhs.status && lhs.code == rhs.code && lhs.message == rhs.message && lhs.data == rhs.data
    }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(data)
    }
}
