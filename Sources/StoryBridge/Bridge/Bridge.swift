import Foundation
import Logging
import Synchronization

/// The router: modules subscribe to commands, and each request is handed to its module and
/// answered exactly once when it carries a GUID.
///
/// - Unknown command → 400 `Failure` naming it.
/// - A module that throws ``BridgeError`` → a `Failure` with that error's code and message.
/// - A module that throws anything else → a 500 `Failure` naming the module and the error.
/// - A module that does not answer within its deadline → a 504 `Failure` saying so.
/// - Requests without a GUID run but are never answered.
public final class Bridge: Sendable {
    /// A module's subscription.
    public struct Registration: Sendable {
        public let module: any BridgeModule
        /// A deadline set at registration, overriding the module's own.
        public let deadlineOverride: ModuleDeadline?

        /// The deadline that applies to `command`.
        public func deadline(for command: String) -> ModuleDeadline {
            deadlineOverride ?? module.deadline(for: command)
        }
    }

    /// What the router needs to handle one command, worked out once when its module subscribes.
    /// A class, so handing a route out of the table costs one reference.
    final class Route: Sendable {
        /// The canonical command name, shared by every request routed here.
        let name: String
        let registration: Registration
        /// `nil` when the module may take as long as it likes.
        let deadline: Duration?
        let runsConcurrently: Bool
        let answersImmediately: Bool

        init(name: String, registration: Registration, deadline: Duration?, runsConcurrently: Bool, answersImmediately: Bool) {
            self.name = name
            self.registration = registration
            self.deadline = deadline
            self.runsConcurrently = runsConcurrently
            self.answersImmediately = answersImmediately
        }
    }

    /// Canonical command name → its route.
    private let routes = Mutex<[String: Route]>([:])
    private let observers = Mutex<[@Sendable (BridgeExchange) -> Void]>([])
    private let timer = DeadlineTimer()
    /// The deadline used by modules that ask for the bridge default.
    public let defaultDeadline: Duration
    private let logger: Logger

    /// Creates a bridge with no modules.
    public init(defaultDeadline: Duration = .seconds(10), logger: Logger = Logger(label: "storybridge.bridge")) {
        self.defaultDeadline = defaultDeadline
        self.logger = logger
    }

    // MARK: Registration

    /// Subscribes `module` to all of its ``BridgeModule/commands``, replacing whatever module
    /// answered them before. `deadline` overrides the module's own.
    public func register(_ module: any BridgeModule, deadline: ModuleDeadline? = nil) {
        subscribe(module, toCommands: module.commands, deadline: deadline)
    }

    /// Subscribes `module` to `commands`, replacing whatever module answered them before.
    public func subscribe(_ module: any BridgeModule, toCommands commands: [String], deadline: ModuleDeadline? = nil) {
        let registration = Registration(module: module, deadlineOverride: deadline)
        let made = commands.map { command in
            let name = CommandNames.canonical(command)
            let deadline: Duration?
            switch registration.deadline(for: name) {
            case .bridgeDefault: deadline = defaultDeadline
            case .after(let duration): deadline = duration
            case .unlimited: deadline = nil
            }
            return (
                name,
                Route(
                    name: name, registration: registration, deadline: deadline, runsConcurrently: module.runsConcurrently(name),
                    answersImmediately: module.answersImmediately(name))
            )
        }
        routes.withLock { routes in
            for (name, route) in made { routes[name] = route }
        }
    }

    /// Removes the subscriptions of `commands`.
    public func unsubscribe(commands: [String]) {
        routes.withLock { routes in
            for command in commands { routes.removeValue(forKey: CommandNames.canonical(command)) }
        }
    }

    /// The registration that answers `command` (any spelling content may send).
    public func registration(for command: String) -> Registration? {
        let name = CommandNames.canonical(command)
        return routes.withLock { $0[name] }?.registration
    }

    /// Whether `command` runs concurrently with the page's later requests.
    public func runsConcurrently(_ command: String) -> Bool {
        let name = CommandNames.canonical(command)
        return routes.withLock { $0[name] }?.runsConcurrently ?? false
    }

    /// All commands with a module, sorted.
    public var commands: [String] {
        routes.withLock { Array($0.keys) }.sorted()
    }

    // MARK: Handling

    /// Calls `observer` after every request is handled (from any task; keep it quick).
    public func observe(_ observer: @escaping @Sendable (BridgeExchange) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Runs one request and returns its answer, or `nil` when it carries no GUID.
    public func handle(_ request: BridgeRequest, context: BridgeContext) async -> BridgeResponse? {
        let started = ContinuousClock.now
        let result = await execute(request, context: context)
        return finish(request, result, context: context, started: started)
    }

    /// Runs one request and returns its outcome, whether or not it carries a GUID.
    public func execute(_ request: BridgeRequest, context: BridgeContext) async -> Result<ModuleReply, BridgeError> {
        switch route(request) {
        case .failure(let error): return .failure(error)
        case .success(let routed): return await run(routed, context: context)
        }
    }

    // MARK: Steps shared with the frame dispatcher

    /// Finds the module of `request` and the deadline that applies.
    func route(_ request: BridgeRequest) -> Result<RoutedRequest, BridgeError> {
        // Content nearly always sends the canonical name: look it up as sent first (route keys are
        // canonical, so a hit needs no normalising), and normalise only on a miss.
        guard let route = routes.withLock({ $0[request.command] }) ?? normalisedRoute(request.command) else {
            return .failure(.unknownCommand(CommandNames.canonical(request.command)))
        }
        // The route's own copy of the name: the one the frame was parsed into is freed at once.
        var canonical = request
        canonical.command = route.name
        return .success(RoutedRequest(route: route, request: canonical))
    }

    /// The route of a command sent with surrounding spaces or a legacy spelling.
    private func normalisedRoute(_ command: String) -> Route? {
        let name = CommandNames.canonical(command)
        return name == command ? nil : routes.withLock { $0[name] }
    }

    /// Turns an outcome into the answer (nil without a GUID) and shows the exchange to observers.
    func finish(
        _ request: BridgeRequest, _ result: Result<ModuleReply, BridgeError>, context: BridgeContext,
        started: ContinuousClock.Instant
    ) -> BridgeResponse? {
        let response = answer(request, result, context: context)
        let duration = ContinuousClock.now - started
        if context.logger.logLevel <= .debug {
            RequestLogLine.log(request, response: response, duration: duration, logger: context.logger)
        }
        let watchers = observers.withLock { $0 }
        if !watchers.isEmpty {
            var isUnknownCommand = false
            if case .failure(.unknownCommand) = result { isUnknownCommand = true }
            let exchange = BridgeExchange(
                viewerId: context.viewer.id, request: request, response: response, duration: duration,
                isUnknownCommand: isUnknownCommand)
            for watcher in watchers { watcher(exchange) }
        }
        return response
    }

    /// Schedules `fire` at `deadline` on the bridge's shared timer; returns the id to cancel with.
    func scheduleDeadline(at deadline: ContinuousClock.Instant, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
        timer.schedule(at: deadline, fire)
    }

    /// Forgets a deadline scheduled with ``scheduleDeadline(at:_:)``.
    func cancelDeadline(_ id: UInt64) {
        timer.cancel(id)
    }

    private func answer(
        _ request: BridgeRequest, _ result: Result<ModuleReply, BridgeError>, context: BridgeContext
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
                guid: guid, status: reply.status, errorCode: reply.code, errorMessage: reply.message, data: reply.data)
        case .failure(let error):
            return .failure(guid: guid, error: error)
        }
    }

    /// Runs a routed request on its own task, racing its deadline, so the caller gets the 504 even
    /// when the module never returns.
    func run(_ routed: RoutedRequest, context: BridgeContext) async -> Result<ModuleReply, BridgeError> {
        let module = routed.module
        let request = routed.request
        guard let deadline = routed.deadline else { return await Self.invoke(module, request, context: context) }
        let answer = FirstAnswer()
        let timer = self.timer
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                answer.setContinuation(continuation)
                let timeout = timer.schedule(at: .now + deadline) {
                    answer.resolve(.failure(.deadlineExceeded(request: request, module: module, after: deadline)))
                }
                answer.track(
                    Task {
                        answer.resolve(await Self.invoke(module, request, context: context))
                        timer.cancel(timeout)
                    })
            }
        } onCancel: {
            answer.resolve(.failure(.refused("The request was cancelled: its page went away")))
        }
    }

    /// Calls the module, turning whatever it throws into a ``BridgeError``.
    static func invoke(
        _ module: any BridgeModule, _ request: BridgeRequest, context: BridgeContext
    ) async -> Result<ModuleReply, BridgeError> {
        do {
            return .success(try await module.reply(request, context: context))
        } catch let error as BridgeError {
            return .failure(error)
        } catch {
            let reason = (error as? any LocalizedError)?.errorDescription ?? String(describing: error)
            return .failure(.moduleFailed(command: request.command, module: module.name, reason: reason))
        }
    }
}

/// A request with its module found and its command name made canonical.
struct RoutedRequest: Sendable {
    let route: Bridge.Route
    let request: BridgeRequest

    var module: any BridgeModule { route.registration.module }
    /// `nil` when the module may take as long as it likes.
    var deadline: Duration? { route.deadline }
    var runsConcurrently: Bool { route.runsConcurrently }
    var answersImmediately: Bool { route.answersImmediately }
}

extension BridgeError {
    /// The 504 of a request whose module did not answer within `after`.
    static func deadlineExceeded(request: BridgeRequest, module: any BridgeModule, after: Duration) -> BridgeError {
        let seconds = Double(after.components.seconds) + Double(after.components.attoseconds) / 1e18
        return .deadlineExceeded(command: request.command, module: module.name, seconds: seconds)
    }
}

/// One handled request, as observers see it.
public struct BridgeExchange: Sendable {
    public let viewerId: String
    public let request: BridgeRequest
    /// `nil` for fire-and-forget requests.
    public let response: BridgeResponse?
    public let duration: Duration
    /// No module answers the command (its name is whatever the page sent).
    public let isUnknownCommand: Bool
}

/// Resumes a continuation with the first of several competing results (the module's answer, the
/// deadline, cancellation); later ones are dropped, and the tasks still running are cancelled.
private final class FirstAnswer: Sendable {
    typealias Answer = Result<ModuleReply, BridgeError>

    private struct State {
        var continuation: CheckedContinuation<Answer, Never>?
        var resolved = false
        /// An answer that arrived before the continuation was set (cancellation before start).
        var early: Answer?
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Mutex(State())

    func setContinuation(_ continuation: CheckedContinuation<Answer, Never>) {
        let early = state.withLock { state -> Answer? in
            if state.early == nil { state.continuation = continuation }
            return state.early
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Keeps a competing task so it can be cancelled once an answer is in.
    func track(_ task: Task<Void, Never>) {
        let alreadyResolved = state.withLock { state -> Bool in
            if !state.resolved { state.tasks.append(task) }
            return state.resolved
        }
        if alreadyResolved { task.cancel() }
    }

    /// Delivers `result` if it is the first; returns whether it was.
    @discardableResult
    func resolve(_ result: Answer) -> Bool {
        let won = state.withLock { state -> (CheckedContinuation<Answer, Never>?, [Task<Void, Never>])? in
            guard !state.resolved else { return nil }
            state.resolved = true
            if state.continuation == nil { state.early = result }
            defer {
                state.continuation = nil
                state.tasks = []
            }
            return (state.continuation, state.tasks)
        }
        guard let (continuation, tasks) = won else { return false }
        continuation?.resume(returning: result)
        for task in tasks { task.cancel() }
        return true
    }
}
