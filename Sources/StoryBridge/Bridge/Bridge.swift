import Foundation
import Logging
import Synchronization

/// The router: modules subscribe to commands, and each request is handed to its command's handler
/// and answered exactly once when it carries a GUID.
///
/// - Unknown command → 400 `Failure` naming it.
/// - A handler that throws ``BridgeError`` → a `Failure` with that error's code and message.
/// - A handler that throws anything else → a 500 `Failure` naming the module and the error.
/// - A handler that does not answer within its deadline → a 504 `Failure` saying so.
/// - Requests without a GUID run but are never answered.
///
/// How a request is scheduled (on the connection's reading task, in the page's order, or as a task
/// of its own) follows its command's ``CommandPolicy``; see ``PageConnection``.
public final class Bridge: Sendable {
    /// A module's subscription.
    public struct Registration: Sendable {
        /// The registered module.
        public let module: any BridgeModule
        /// A deadline set at registration, overriding the one of every command's policy.
        public let deadlineOverride: CommandDeadline?
    }

    /// Canonical command name → its route, and the lists worked out from the routes.
    private let routes = Mutex(RouteTable())
    private let observers = Mutex<[@Sendable (BridgeExchange) -> Void]>([])
    let timer: DeadlineTimer
    /// The deadline used by commands that ask for the bridge default.
    public let defaultDeadline: Duration
    /// Where the bridge reads time: request durations and deadlines.
    public let clock: any HostClock
    private let logger: Logger

    /// Creates a bridge with no modules.
    public init(
        defaultDeadline: Duration = .seconds(10), clock: any HostClock = SystemHostClock(),
        logger: Logger = Logger(label: "storybridge.bridge")
    ) {
        self.defaultDeadline = defaultDeadline
        self.clock = clock
        self.timer = DeadlineTimer(clock: clock)
        self.logger = logger
    }

    // MARK: Registration

    /// Subscribes `module` to every command of its table, replacing whatever module answered them
    /// before. `deadline` overrides the deadline of each command's policy.
    ///
    /// Throws, subscribing nothing, when the table declares a command twice or one without a name.
    public func register(_ module: any BridgeModule, deadline: CommandDeadline? = nil) throws(ModuleRegistrationError) {
        let table = try Self.handlers(of: module)
        install(table.map { ($0.key, $0.value) }, of: Registration(module: module, deadlineOverride: deadline))
    }

    /// Subscribes `module` to some of its commands only, replacing whatever module answered them
    /// before. `deadline` overrides the deadline of each command's policy.
    ///
    /// Throws, subscribing nothing, when a command in `commands` has no handler in the module's
    /// table, or the table itself is invalid.
    public func subscribe(
        _ module: any BridgeModule, toCommands commands: [String], deadline: CommandDeadline? = nil
    ) throws(ModuleRegistrationError) {
        let table = try Self.handlers(of: module)
        var chosen: [(String, BridgeCommand)] = []
        for command in commands {
            let name = CommandNames.canonical(command)
            guard let entry = table[name] else { throw .noHandler(module: module.name, command: command) }
            chosen.append((name, entry))
        }
        install(chosen, of: Registration(module: module, deadlineOverride: deadline))
    }

    /// The module's table by canonical command name, checked.
    private static func handlers(of module: any BridgeModule) throws(ModuleRegistrationError) -> [String: BridgeCommand] {
        var table: [String: BridgeCommand] = [:]
        for entry in module.commands.entries {
            let name = CommandNames.canonical(entry.name)
            guard !name.isEmpty else { throw .emptyCommandName(module: module.name) }
            guard table.updateValue(entry, forKey: name) == nil else {
                throw .duplicateCommand(module: module.name, command: name)
            }
        }
        return table
    }

    /// Works out the routes of `commands` (once per command, here) and puts them in the table.
    private func install(_ commands: [(name: String, entry: BridgeCommand)], of registration: Registration) {
        let made = commands.map { command in
            let policy = registration.deadlineOverride.map { command.entry.policy.with(deadline: $0) } ?? command.entry.policy
            let deadline: Duration?
            switch policy.deadline {
            case .bridgeDefault: deadline = defaultDeadline
            case .after(let duration): deadline = duration
            case .unlimited: deadline = nil
            }
            return Route(name: command.name, registration: registration, command: command.entry, policy: policy, deadline: deadline)
        }
        routes.withLock { table in
            for route in made { table.byName[route.name] = route }
            table.changed()
        }
    }

    /// Removes the subscriptions of `commands`.
    public func unsubscribe(commands: [String]) {
        routes.withLock { table in
            for command in commands { table.byName.removeValue(forKey: CommandNames.canonical(command)) }
            table.changed()
        }
    }

    /// The registration that answers `command` (any spelling content may send).
    public func registration(for command: String) -> Registration? {
        let name = CommandNames.canonical(command)
        return routes.withLock { $0.byName[name] }?.registration
    }

    /// The policy `command` runs by (with a registration's deadline applied), or `nil` when no
    /// module answers it.
    public func policy(for command: String) -> CommandPolicy? {
        let name = CommandNames.canonical(command)
        return routes.withLock { $0.byName[name] }?.policy
    }

    /// All commands with a module, sorted.
    public var commands: [String] {
        routes.withLock { Array($0.byName.keys) }.sorted()
    }

    /// The list named `key` worked out from the registrations by `make`, made once per change of
    /// the registrations (slides name such lists in every page: `PageAnswers`, `EarlyAnswers`).
    func derivedList(_ key: String, make: (Bridge) -> [String]) -> [String] {
        let (generation, kept) = routes.withLock { ($0.generation, $0.derived[key]) }
        if let kept { return kept }
        let made = make(self)
        // Kept only if no registration changed while it was made.
        routes.withLock { table in
            if table.generation == generation { table.derived[key] = made }
        }
        return made
    }

    // MARK: Observing

    /// Calls `observer` after every request is handled (from any task; keep it quick).
    public func observe(_ observer: @escaping @Sendable (BridgeExchange) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Shows an exchange answered outside the bridge (by the page itself, ``PageAnswers``) to the
    /// observers, as taking no time and made now.
    func report(viewerId: String, request: BridgeRequest, response: BridgeResponse) {
        let exchange = BridgeExchange(
            viewerId: viewerId, request: request, response: response, duration: .zero, finished: clock.instant,
            isUnknownCommand: false)
        for watcher in observers.withLock({ $0 }) { watcher(exchange) }
    }

    // MARK: Steps shared with the frame dispatcher

    /// The request with its route, or `nil` when no module answers its command.
    func routed(_ request: consuming BridgeRequest) -> RoutedRequest? {
        // Content nearly always sends the canonical name: look it up as sent first (route keys are
        // canonical, so a hit needs no normalising), and normalise only on a miss.
        guard let route = routes.withLock({ $0.byName[request.command] }) ?? normalisedRoute(request.command) else { return nil }
        // The route's own copy of the name: the one the frame was parsed into is freed at once.
        request.command = route.name
        return RoutedRequest(route: route, request: request)
    }

    /// The route of a command sent with surrounding spaces or a legacy spelling.
    private func normalisedRoute(_ command: String) -> Route? {
        let name = CommandNames.canonical(command)
        return name == command ? nil : routes.withLock { $0.byName[name] }
    }

    /// Turns an outcome into the answer (nil without a GUID), hands it to `use` before the
    /// observers see the exchange, and returns what `use` returns (`{ $0 }`: the answer); the
    /// answer lives in the exchange the observers get, and `use` reads it there.
    func finish<T>(
        _ request: BridgeRequest, _ result: consuming Result<ModuleReply, BridgeError>, context: BridgeContext,
        started: ContinuousClock.Instant, _ use: (BridgeResponse?) -> T
    ) -> T {
        var isUnknownCommand = false
        if case .failure(.unknownCommand) = result { isUnknownCommand = true }
        let response = answer(request, result, context: context)
        let finished = clock.instant
        let duration = finished - started
        if context.logsEachRequest {
            RequestLogLine.log(request, response: response, duration: duration, logger: context.logger)
        }
        let watchers = observers.withLock { $0 }
        if watchers.isEmpty { return use(response) }
        let exchange = BridgeExchange(
            viewerId: context.viewer.id, request: request, response: response, duration: duration, finished: finished,
            isUnknownCommand: isUnknownCommand)
        let used = use(exchange.response)
        for watcher in watchers { watcher(exchange) }
        return used
    }

    private func answer(
        _ request: BridgeRequest, _ result: consuming Result<ModuleReply, BridgeError>, context: BridgeContext
    ) -> BridgeResponse? {
        if case .failure(let error) = result, error.isDefect || request.guid == nil {
            // A failure nobody hears of (no GUID) or one that points at a defect is worth a warning.
            context.logger.warning(
                request.guid == nil ? "request without GUID failed" : "request failed",
                metadata: [
                    "command": "\(request.command)", "code": "\(error.errorCode)",
                    "error": "\(RequestLogLine.preview(error.message))",
                ])
        }
        guard let guid = request.guid else { return nil }
        switch result {
        case .success(let reply):
            return BridgeResponse(
                guid: guid, status: reply.status, errorCode: reply.code, errorMessage: reply.message,
                payload: reply.payload)
        case .failure(let error):
            return .failure(guid: guid, error: error)
        }
    }
}

/// One handled request, as observers see it. A class, so each observer (and the inspector's
/// history) shares the one exchange instead of copying its strings and values.
public final class BridgeExchange: Sendable {
    /// The viewer (page connection) that sent the request.
    public let viewerId: String
    /// The request as it was read from the frame.
    public let request: BridgeRequest
    /// `nil` for fire-and-forget requests.
    public let response: BridgeResponse?
    /// From the request's arrival to its answer, on the bridge's clock.
    public let duration: Duration
    /// When the answer was made, on the bridge's clock.
    public let finished: ContinuousClock.Instant
    /// No module answers the command (its name is whatever the page sent).
    public let isUnknownCommand: Bool

    init(
        viewerId: String, request: BridgeRequest, response: BridgeResponse?, duration: Duration,
        finished: ContinuousClock.Instant, isUnknownCommand: Bool
    ) {
        self.viewerId = viewerId
        self.request = request
        self.response = response
        self.duration = duration
        self.finished = finished
        self.isUnknownCommand = isUnknownCommand
    }
}
