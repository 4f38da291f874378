import Synchronization

/// Turns the text frames of one page connection into module calls and answers.
///
/// A frame's requests are routed once, on the task that reads the connection (``route(_:)``).
/// Then each routed request meets one decision (``dispatch(_:writingInto:spawn:)``), by its policy:
/// - answered now, when it has an answer from memory (every ``CommandPolicy/fromMemory(_:)``
///   command, or one given ``BridgeCommand/answeringFromMemory(_:)``) and nothing of the page is
///   waiting: a plain synchronous call on the reading task, written into the caller's buffer;
/// - queued in the page's order (``OrderedRequestQueue``): any other ordered or memory request,
///   a recording command as a record, an unknown command (its 400 keeps its place);
/// - a task of its own through `spawn`: a ``CommandPolicy/concurrent(_:)`` request;
/// - refused: a concurrent request past ``maxInFlight`` (429), an unreadable one (400 or an event).
///
/// Every answer goes through one ``AnswerSink``.
package struct FrameDispatcher: Sendable {
    /// The bridge whose modules answer the frames.
    package let bridge: Bridge
    /// The viewer's context handed to every command of this connection.
    package let context: BridgeContext
    /// Most concurrent requests (media, HTTP...) in flight at once on this connection; more are
    /// answered 429 at once.
    package let maxInFlight: Int
    private let answers: AnswerSink
    private let events: @Sendable (HostEvent) -> Void
    private let inFlight = InFlightCounter()
    private let ordered: OrderedRequestQueue

    /// A dispatcher for one connection: answers go to `answers`, the `error` events of frames that
    /// cannot be read (without a GUID) to `events`.
    package init(
        bridge: Bridge, context: BridgeContext, maxInFlight: Int = 64, answers: AnswerSink,
        events: @escaping @Sendable (HostEvent) -> Void
    ) {
        self.bridge = bridge
        self.context = context
        self.maxInFlight = maxInFlight
        self.answers = answers
        self.events = events
        ordered = OrderedRequestQueue(bridge: bridge, context: context, answers: answers)
    }

    /// The frame as read, with each request routed: the one look-up of its command.
    package func route(_ read: Result<BridgeRequest.Frame, FrameError>) -> RoutedFrame {
        switch read {
        case .failure(let error): return .one(.unreadable(error))
        case .success(.request(let request)): return .one(route(request))
        case .success(.queue(let items)):
            return .queue(
                items.map { item in
                    switch item {
                    case .failure(let error): return .unreadable(error)
                    case .success(let request): return route(request)
                    }
                })
        }
    }

    private func route(_ request: BridgeRequest) -> RoutedFrame.Item {
        bridge.routed(request).map(RoutedFrame.Item.routed) ?? .unknown(request)
    }

    /// Decides, once, what becomes of each request of `frame`, in order. An answer made now is
    /// written into `bytes` (a connection reuses one array) and handed to the sink before the next
    /// request. `spawn` runs work that outlives the call (the queue's worker, each concurrent
    /// request) in the connection's task group. Call it from the reading task only.
    package func dispatch(
        _ frame: RoutedFrame, writingInto bytes: inout [UInt8], spawn: (@escaping @Sendable () async -> Void) -> Void
    ) async {
        switch frame {
        case .one(let item): await schedule(item, writingInto: &bytes, spawn: spawn)
        case .queue(let items):
            for item in items { await schedule(item, writingInto: &bytes, spawn: spawn) }
        }
    }

    /// The one decision for one request.
    private func schedule(
        _ item: RoutedFrame.Item, writingInto bytes: inout [UInt8], spawn: (@escaping @Sendable () async -> Void) -> Void
    ) async {
        let routed: RoutedRequest
        switch item {
        case .unreadable(let error): return reject(error)
        case .unknown(let request): return await ordered.enqueue(.unknown(request), spawn: spawn)
        case .routed(let found): routed = found
        }
        if case .concurrent = routed.route.policy {
            guard inFlight.enter(limit: maxInFlight) else { return refuseBusy(routed.request) }
            // On its own task, cancelled at its deadline.
            return spawn {
                await self.bridge.run(
                    routed, context: self.context, deadline: routed.route.deadline, cancelsAtDeadline: true,
                    atDeadline: { self.sendConcurrentAnswer($0) }, onTime: { self.sendConcurrentAnswer($0) })
            }
        }
        if let answered = answerNow(.one(item), writingInto: &bytes) {
            if answered { await answers.writeBytes(bytes) }
            return
        }
        await ordered.enqueue(routed.route.command.recordHandler == nil ? .request(routed) : .record(routed), spawn: spawn)
    }

    /// The decision's synchronous half, which the reading task tries first: a frame of one request
    /// answered now (the first rule above) is answered without an `await`, into `bytes`. `true`:
    /// `bytes` hold the answer; `false`: nothing to send (no GUID); `nil`: ``dispatch(_:writingInto:spawn:)``.
    package func answerNow(_ frame: RoutedFrame, writingInto bytes: inout [UInt8]) -> Bool? {
        // Only the reading task adds to the queue, so it stays idle while the answer is made: the
        // page's earlier requests are all answered (their writes committed).
        guard case .one(.routed(let routed)) = frame, routed.route.command.memoryAnswer != nil, ordered.isIdle else { return nil }
        return bridge.answerFromMemory(routed, context: context) { response -> Bool in
            guard let response else { return false }
            bytes.removeAll(keepingCapacity: true)
            response.appendJSON(to: &bytes)
            return true
        }
    }

    /// Sends the one answer of a concurrent request and frees its place in flight.
    private func sendConcurrentAnswer(_ response: BridgeResponse?) {
        answers.send(response)
        inFlight.leave()
    }

    /// Tells the page that a frame could not be read: a `Failure` to its GUID when one could be
    /// read, an `error` event otherwise.
    package func reject(_ error: FrameError) {
        context.logger.warning("unreadable frame", metadata: ["error": "\(error.message)"])
        if case .invalidMember(_, _, let guid?) = error {
            let failure = BridgeError.invalidData(field: "request", reason: error.message)
            answers.send(BridgeResponse.failure(guid: guid, error: failure))
        } else {
            events(HostEvent.error(error.message))
        }
    }

    private func refuseBusy(_ request: BridgeRequest) {
        let error = BridgeError.custom(
            code: 429, message: "Too many requests in flight on this connection (limit \(maxInFlight))", data: .emptyObject)
        context.logger.warning("request refused", metadata: ["reason": "\(error.message)"])
        if let guid = request.guid { answers.send(BridgeResponse.failure(guid: guid, error: error)) }
    }

    /// Stops answering: call when the connection has ended.
    package func finish() {
        ordered.close()
    }
}

/// Where one connection's answers go, as one text frame each, serialised by one function
/// (`JSONWriter.append`) whoever made the answer. Host events keep their own way out.
package struct AnswerSink: Sendable {
    /// Writes one answer's bytes from the task that answers the page in order (the reading task
    /// or the page's worker), before that task goes on; kept in order with ``sendBytes``.
    let writeBytes: @Sendable ([UInt8]) async -> Void
    /// Sends one answer's bytes from anywhere (a concurrent request's task, the deadline timer)
    /// without waiting.
    let sendBytes: @Sendable ([UInt8]) -> Void

    /// A sink writing with `write` from the answering task and with `send` from anywhere else.
    package init(write: @escaping @Sendable ([UInt8]) async -> Void, send: @escaping @Sendable ([UInt8]) -> Void) {
        writeBytes = write
        sendBytes = send
    }

    /// Writes `response` (nothing for a request without a GUID) from the task answering in order.
    func write(_ response: BridgeResponse?) async {
        if let response { await writeBytes(response.jsonBytes) }
    }

    /// Sends `response` (nothing for a request without a GUID) from anywhere.
    func send(_ response: BridgeResponse?) {
        if let response { sendBytes(response.jsonBytes) }
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
