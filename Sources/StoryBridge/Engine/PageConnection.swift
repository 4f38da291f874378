import NIOCore
import Synchronization

/// Drives one page connection: turns its text frames into module calls and answers, and writes
/// answers and host events back, by the decisions of one ``ConnectionStateMachine``.
///
/// Every event (a frame routed, the page load recorded, an answer made, a deadline fired, a write
/// done, the socket closed) goes to the machine under the connection's one lock, and the action it
/// returns is done outside the lock. The tasks it holds up (the reading task waiting for the page
/// load or for room, the worker waiting for room, the writer waiting for messages) wait at one
/// place, ``park(_:)``. Its tasks:
/// - the reading task (``receive(_:reader:spawn:)``): routes each request once and meets the
///   machine's one decision: answered now from memory (written by the reading task itself when
///   nothing is queued), queued in the page's order, run on a task of its own, or refused;
/// - the page's worker (spawned when the queue stops being idle): runs the queued requests one after
///   another, records waiting one after another committed together; replaced when its request's
///   deadline passes, so a hung module cannot stall its page;
/// - a task per concurrent request (``CommandPolicy/concurrent(_:)``), cancelled at its deadline;
/// - the writer (``runWriter()``): writes what is queued, one text frame per message, in order.
///
/// Every answer and host event leaves through the machine's ``ConnectionStateMachine/answerMade(_:by:)``.
package final class PageConnection: Sendable {
    typealias Machine = ConnectionStateMachine<RoutedFrame.Item, ByteBuffer>
    /// Runs work that outlives a call (the page's worker, each concurrent request) in the
    /// connection's task group.
    package typealias Spawn = (@escaping @Sendable () async -> Void) -> Void
    /// Writes one message to the page as one text frame. `byAnsweringTask`: written by the task
    /// that made the answer (nothing was queued), not by the writer.
    package typealias Output = @Sendable (_ message: ByteBuffer, _ byAnsweringTask: Bool) async throws -> Void

    /// What the reading task keeps from one frame to the next.
    package struct Reader: Sendable {
        /// Where answers made now are written, one after another (a connection reuses one array).
        package var answer: [UInt8] = []
        /// Once the page load is recorded, the reading task stops asking.
        var pageLoadRecorded = false

        /// A reading task's state before its first frame.
        package init() {
            answer.reserveCapacity(512)
        }
    }

    /// The bridge whose modules answer the frames.
    package let bridge: Bridge
    /// The viewer's context handed to every command of this connection.
    package let context: BridgeContext
    /// Most concurrent requests (media, HTTP...) in flight at once on this connection; more are
    /// answered 429 at once.
    package let maxInFlight: Int
    /// Most messages queued for the writer before a task answering in order waits for room.
    package static var outboundHighWatermark: Int { Machine.Limits(maxInFlight: 0).outboundHighWatermark }
    let output: Output
    private let core: Mutex<Core>

    /// The machine and the continuations of the tasks it holds up: the connection's one lock.
    private struct Core: ~Copyable {
        var machine: Machine
        var reader: CheckedContinuation<Void, Never>?
        var worker: CheckedContinuation<Void, Never>?
        var writer: CheckedContinuation<Void, Never>?
        /// Workers started after a deadline, which are not children of the connection's task
        /// group: cancelled when the connection ends.
        var replacements: [Task<Void, Never>] = []

        mutating func store(_ continuation: CheckedContinuation<Void, Never>, for waiter: Machine.Waiter) {
            switch waiter {
            case .reader: reader = continuation
            case .worker: worker = continuation
            case .writer: writer = continuation
            }
        }

        mutating func take(_ waiters: Machine.Waiters) -> [CheckedContinuation<Void, Never>] {
            guard !waiters.isEmpty else { return [] }
            var taken: [CheckedContinuation<Void, Never>] = []
            if waiters.contains(.reader), let reader { taken.append(reader) }
            if waiters.contains(.worker), let worker { taken.append(worker) }
            if waiters.contains(.writer), let writer { taken.append(writer) }
            if waiters.contains(.reader) { reader = nil }
            if waiters.contains(.worker) { worker = nil }
            if waiters.contains(.writer) { writer = nil }
            return taken
        }
    }

    /// A connection whose answers and events `output` writes (run ``runWriter()`` beside it).
    /// `maxInFlight`: most concurrent requests (media, HTTP...) in flight at once; more are
    /// answered 429 at once. `pageLoad`: whether requests wait for the page load to be recorded
    /// (``pageLoadRecorded()``).
    package init(
        bridge: Bridge, context: BridgeContext, maxInFlight: Int = 64, pageLoad: PageLoad = .recorded, output: @escaping Output
    ) {
        self.bridge = bridge
        self.context = context
        self.maxInFlight = maxInFlight
        self.output = output
        core = Mutex(Core(machine: Machine(limits: .init(maxInFlight: maxInFlight), pageLoad: pageLoad)))
    }

    // MARK: Driving the machine

    /// Hands one event to the machine, lets go the tasks it releases, and returns its action.
    @inline(__always) @discardableResult
    func withMachine<Action: Sendable>(_ event: (inout Machine) -> Action) -> Action {
        let (action, released) = core.withLock { core in
            let action = event(&core.machine)
            return (action, core.take(core.machine.takeReleased()))
        }
        for continuation in released { continuation.resume() }
        return action
    }

    /// Waits, when the machine says so, until it releases `waiter`: the one place where the
    /// connection's tasks wait.
    func park(_ waiter: Machine.Waiter) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = core.withLock { core -> Bool in
                guard core.machine.park(waiter) else { return false }
                core.store(continuation, for: waiter)
                return true
            }
            if !waits { continuation.resume() }
        }
    }

    /// Keeps a replacement worker, cancelled when the connection ends (at once if it has).
    func keep(replacement: Task<Void, Never>) {
        let ended = core.withLock { core -> Bool in
            if !core.machine.readingEnded { core.replacements.append(replacement) }
            return core.machine.readingEnded
        }
        if ended { replacement.cancel() }
    }

    // MARK: The reading task

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

    /// Whether every request of `frame` is a command that only reads memory.
    package static func onlyReadsMemory(_ frame: RoutedFrame) -> Bool {
        func readsOnly(_ item: RoutedFrame.Item) -> Bool {
            if case .routed(let routed) = item { return routed.policy.isReadOnly }
            return false
        }
        switch frame {
        case .one(let item): return readsOnly(item)
        case .queue(let items): return !items.isEmpty && items.allSatisfy(readsOnly)
        }
    }

    /// Decides, once, what becomes of each request of `frame`, in order; an answer made now is
    /// written before the next request. Call it from the reading task only, one frame at a time.
    package func receive(_ frame: RoutedFrame, reader: inout Reader, spawn: Spawn) async {
        if !reader.pageLoadRecorded {
            await admit(onlyReadsMemory: Self.onlyReadsMemory(frame))
            reader.pageLoadRecorded = withMachine { $0.pageLoad == .recorded }
        }
        switch frame {
        case .one(let item): await schedule(item, into: &reader.answer, spawn: spawn)
        case .queue(let items):
            for item in items { await schedule(item, into: &reader.answer, spawn: spawn) }
        }
    }

    /// A binary frame: refused once the page load lets it through.
    package func receiveBinary() async {
        await admit(onlyReadsMemory: false)
        reject(.notARequest("binary frames are not supported: send JSON text frames"))
    }

    /// Returns when a frame may be dispatched: at once, or once the page load is recorded.
    private func admit(onlyReadsMemory: Bool) async {
        if withMachine({ $0.frameArrived(onlyReadsMemory: onlyReadsMemory) }) == .holdUntilPageLoad {
            await park(.reader(.pageLoad))
        }
    }

    /// The page load is recorded: held requests, and every later one, go on.
    package func pageLoadRecorded() {
        withMachine { $0.pageLoadRecorded() }
    }

    /// Returns once the page load is recorded (the connection's end waits for it).
    package func waitForPageLoad() async {
        await admit(onlyReadsMemory: false)
    }

    /// The one decision for one request, and its action.
    private func schedule(_ item: RoutedFrame.Item, into bytes: inout [UInt8], spawn: Spawn) async {
        var traits: Machine.Traits
        switch item {
        case .unreadable(let error): return reject(error)
        case .unknown: traits = Machine.Traits(scheduling: .ordered, hasMemoryAnswer: false)
        case .routed(let routed): traits = Self.traits(of: routed)
        }
        var action = withMachine { $0.requestRouted(item, traits) }
        if action == .answerFromMemory, case .routed(let routed) = item {
            if let answered = answerFromMemory(routed, into: &bytes) {
                if answered { await deliver(ByteBuffer(bytes: bytes), by: .reader) }
                return
            }
            // Memory does not hold it: it goes as a request without a memory answer.
            traits.hasMemoryAnswer = false
            action = withMachine { $0.requestRouted(item, traits) }
        }
        switch action {
        case .answerFromMemory, .drop: return
        case .spawn(let ticket):
            // Only a routed request is concurrent.
            guard case .routed(let routed) = item else { return }
            spawn { await self.runConcurrent(routed, owed: ticket) }
        case .refuseBusy: refuseBusy(item)
        case .enqueued(let startWorker, let waitForRoom):
            if let generation = startWorker { spawn { await self.work(generation: generation) } }
            if waitForRoom { await park(.reader(.queueRoom)) }
        }
    }

    static func traits(of routed: RoutedRequest) -> Machine.Traits {
        let scheduling: Machine.Scheduling
        if case .concurrent = routed.route.policy {
            scheduling = .concurrent
        } else {
            scheduling = routed.route.command.recordHandler == nil ? .ordered : .record
        }
        return Machine.Traits(scheduling: scheduling, hasMemoryAnswer: routed.route.command.memoryAnswer != nil)
    }

    /// The one place an answer from memory is made, into `bytes`: `true` when they hold it,
    /// `false` when there is nothing to send (no GUID), `nil` when memory does not hold it.
    func answerFromMemory(_ routed: RoutedRequest, into bytes: inout [UInt8]) -> Bool? {
        bridge.answerFromMemory(routed, context: context) { response -> Bool in
            guard let response else { return false }
            bytes.removeAll(keepingCapacity: true)
            response.appendJSON(to: &bytes)
            return true
        }
    }

    /// Tells the page that a frame could not be read: a `Failure` to its GUID when one could be
    /// read, an `error` event otherwise.
    package func reject(_ error: FrameError) {
        context.logger.warning("unreadable frame", metadata: ["error": "\(error.message)"])
        if case .invalidMember(_, _, let guid?) = error {
            let failure = BridgeError.invalidData(field: "request", reason: error.message)
            send(BridgeResponse.failure(guid: guid, error: failure))
        } else {
            send(event: HostEvent.error(error.message).json.jsonString())
        }
    }

    private func refuseBusy(_ item: RoutedFrame.Item) {
        let error = BridgeError.custom(
            code: 429, message: "Too many requests in flight on this connection (limit \(maxInFlight))", data: .emptyObject)
        context.logger.warning("request refused", metadata: ["reason": "\(error.message)"])
        if case .routed(let routed) = item, let guid = routed.request.guid {
            send(BridgeResponse.failure(guid: guid, error: error))
        }
    }

    /// Stops taking requests (the connection has ended) and cancels replacement workers. What is
    /// queued still runs, within its deadline: a request sent just before the page left (a `go`
    /// without a callback) takes effect.
    package func finishReading() {
        withMachine { $0.readingStopped() }
        let replacements = core.withLock { core -> [Task<Void, Never>] in
            defer { core.replacements = [] }
            return core.replacements
        }
        for task in replacements { task.cancel() }
    }

    /// Returns once nothing is owed and everything made is written (or the connection is gone).
    package func drained() async {
        await park(.reader(.drained))
    }
}
