import Synchronization

/// Turns the text frames of one page connection into module calls and outbound messages.
///
/// Each request is scheduled by its command's ``CommandPolicy``, worked out once at subscription:
/// - ``CommandPolicy/fromMemory``: answered right here, on the reading task, when no earlier
///   request of the page is still waiting (no task, queue or deadline; a command made with
///   ``BridgeCommand/fromMemory(_:_:answer:)`` by a plain synchronous call); otherwise queued like
///   an ordered one, so it keeps its place.
/// - ``CommandPolicy/ordered(_:)`` (and unknown commands, whose 400 keeps its place): queued for the
///   connection's one worker, answered in the order sent. A command with an answer from memory
///   (``BridgeCommand/answeringFromMemory(_:)``) is first offered to it, like a `fromMemory` one,
///   when nothing of the page is waiting; what memory does not hold is queued. The worker, too,
///   tries answers from memory first.
/// - ``CommandPolicy/concurrent(_:)``: handed to `spawn` as a task of its own, so it cannot hold up
///   the rest; at most ``maxInFlight`` at once.
///
/// Every path runs the request the same way, with the same deadline mechanism (`Bridge.run`).
/// A frame that cannot be read yields an `error` event (or, when a GUID could be read, a
/// `Failure` answer to it) and the connection goes on.
public struct FrameDispatcher: Sendable {
    /// The bridge whose modules answer the frames.
    public let bridge: Bridge
    /// The viewer's context handed to every command of this connection.
    public let context: BridgeContext
    /// Delivers one outbound message (a response or an event) to the page.
    public let deliver: @Sendable (JSONValue) -> Void
    /// Most concurrent requests (media, HTTP...) in flight at once on this connection; more are
    /// answered 429 at once.
    public let maxInFlight: Int
    private let inFlight = InFlightCounter()
    private let ordered: OrderedRequestQueue
    private let respond: @Sendable (BridgeResponse) async -> Void

    /// Creates a dispatcher for one connection that sends everything with `deliver` (from anywhere).
    public init(
        bridge: Bridge, context: BridgeContext, maxInFlight: Int = 64, deliver: @escaping @Sendable (JSONValue) -> Void
    ) {
        self.init(bridge: bridge, context: context, maxInFlight: maxInFlight, deliver: deliver, respond: { deliver($0.json) })
    }

    /// Creates a dispatcher for one connection. `deliver` sends from anywhere; `respond` is how the
    /// task answering ordered requests sends its answers (it may write them itself rather than hand
    /// them to another task), and must keep them in order with `deliver`.
    public init(
        bridge: Bridge, context: BridgeContext, maxInFlight: Int = 64, deliver: @escaping @Sendable (JSONValue) -> Void,
        respond: @escaping @Sendable (BridgeResponse) async -> Void
    ) {
        self.bridge = bridge
        self.context = context
        self.maxInFlight = maxInFlight
        self.deliver = deliver
        self.respond = respond
        ordered = OrderedRequestQueue(bridge: bridge, context: context, deliver: deliver, respond: respond)
    }

    /// Handles one text frame. `spawn` runs work that outlives the call: the worker that answers
    /// ordered requests, and each concurrent request. Run it in the connection's task group, so the
    /// work is cancelled with the connection and a test can wait for the answers.
    public func dispatch(frame text: String, spawn: (@escaping @Sendable () async -> Void) -> Void) async {
        await dispatch(read: BridgeRequest.read(frame: text), spawn: spawn)
    }

    /// Handles one frame already read (``BridgeRequest/read(frame:)``), for a caller that looked
    /// at its requests first.
    public func dispatch(
        read: Result<BridgeRequest.Frame, FrameError>, spawn: (@escaping @Sendable () async -> Void) -> Void
    ) async {
        let frame: BridgeRequest.Frame
        switch read {
        case .success(let value): frame = value
        case .failure(let error):
            reject(error)
            return
        }
        switch frame {
        case .request(let request):
            await handle(request, spawn: spawn)
        case .queue(let items):
            for item in items {
                switch item {
                case .failure(let error): reject(error)
                case .success(let request): await handle(request, spawn: spawn)
                }
            }
        }
    }

    /// The answer to a frame that can be answered by a plain call, with no task and no suspension:
    /// one request whose command answers from memory (``BridgeCommand/fromMemory(_:_:answer:)``,
    /// or ``BridgeCommand/answeringFromMemory(_:)`` when memory holds the answer) while nothing of
    /// the page is waiting. `use` gets the answer (`nil` for a request without a GUID) and writes
    /// it out where it lies, for example as the bytes of a text frame; what it returns is returned.
    /// `nil` means the frame goes to ``dispatch(read:spawn:)``. Call it from the task that
    /// dispatches the connection's frames.
    public func answerAtOnce<T>(_ read: Result<BridgeRequest.Frame, FrameError>, _ use: (BridgeResponse?) -> T) -> T? {
        guard case .success(.request(let request)) = read, let routed = bridge.routed(request) else { return nil }
        return answerFromMemoryWhenIdle(routed, use)
    }

    /// The answer from memory to `routed` (a command that is not concurrent), when nothing of the
    /// page is waiting, so its earlier writes have committed; `nil` when the request must be run.
    private func answerFromMemoryWhenIdle<T>(_ routed: RoutedRequest, _ use: (BridgeResponse?) -> T) -> T? {
        if case .concurrent = routed.route.policy { return nil }
        // Only the dispatching task adds to the queue, so it stays idle while the answer is made.
        guard routed.route.command.memoryAnswer != nil, ordered.isIdle else { return nil }
        return bridge.answerFromMemory(routed, context: context, use)
    }

    /// Answers at once, queues, or spawns one request, as its command's policy says.
    private func handle(_ request: BridgeRequest, spawn: (@escaping @Sendable () async -> Void) -> Void) async {
        let route = bridge.route(request)
        guard case .success(let routed) = route else {
            // Unknown commands go through the queue too, so their 400 keeps its place in line.
            await ordered.enqueue(request, route: route, spawn: spawn)
            return
        }
        if let answered = answerFromMemoryWhenIdle(routed, { $0 }) {
            if let response = answered { await respond(response) }
            return
        }
        switch routed.route.policy {
        case .fromMemory, .ordered:
            await ordered.enqueue(request, route: route, spawn: spawn)
        case .concurrent:
            guard inFlight.enter(limit: maxInFlight) else {
                refuseBusy(request)
                return
            }
            spawn {
                await self.bridge.run(
                    routed, context: self.context, deadline: routed.route.deadline, cancelsAtDeadline: true,
                    atDeadline: { self.sendConcurrentAnswer($0) }, onTime: { self.sendConcurrentAnswer($0) })
            }
        }
    }

    /// Sends the one answer of a concurrent request and frees its place in flight.
    private func sendConcurrentAnswer(_ response: BridgeResponse?) {
        if let response { deliver(response.json) }
        inFlight.leave()
    }

    /// Tells the page that a frame could not be read.
    public func reject(_ error: FrameError) {
        context.logger.warning("unreadable frame", metadata: ["error": "\(error.message)"])
        if case .invalidMember(_, _, let guid?) = error {
            let failure = BridgeError.invalidData(field: "request", reason: error.message)
            deliver(BridgeResponse.failure(guid: guid, error: failure).json)
        } else {
            deliver(HostEvent.error(error.message).json)
        }
    }

    private func refuseBusy(_ request: BridgeRequest) {
        let error = BridgeError.custom(
            code: 429, message: "Too many requests in flight on this connection (limit \(maxInFlight))", data: .emptyObject)
        context.logger.warning("request refused", metadata: ["reason": "\(error.message)"])
        if let guid = request.guid { deliver(BridgeResponse.failure(guid: guid, error: error).json) }
    }

    /// Stops answering: call when the connection has ended.
    public func finish() {
        ordered.close()
    }
}

/// Counts a connection's concurrent requests.
final class InFlightCounter: Sendable {
    private let count = Mutex(0)

    func enter(limit: Int) -> Bool {
        count.withLock { value in
            guard value < limit else { return false }
            value += 1
            return true
        }
    }

    func leave() {
        count.withLock { $0 -= 1 }
    }
}
