import Synchronization

/// Runs one connection's ordered requests one after another on a worker task, so the loop that
/// reads the page's frames never waits for a module and a burst of pipelined requests costs one
/// task instead of one per request.
///
/// Recording commands waiting one after another are taken as one run and committed together
/// (`Bridge.runRecords`). When a request's turn comes, every earlier one has been answered, so an
/// answer from memory is tried before the handler, as on the reading task.
///
/// A request whose handler outlives its deadline is answered 504 by the bridge's timer (the one
/// deadline mechanism, in `Bridge.run`); the stuck worker is abandoned (its late answer is dropped)
/// and a fresh worker takes over the rest of the queue, so a hung module cannot stall its page.
///
/// The queue holds at most ``highWater`` requests: past that the reading loop waits until the
/// worker has drained half of them, so a page that floods the host is slowed by TCP back-pressure
/// instead of growing the host's memory.
final class OrderedRequestQueue: Sendable {
    typealias Item = (request: BridgeRequest, route: Result<RoutedRequest, BridgeError>)

    private struct State {
        var pending: [Item] = []
        /// Index of the next request in `pending` (the array is compacted now and then).
        var head = 0
        var workerRunning = false
        /// Bumped when a worker is abandoned; a worker whose generation is stale stops.
        var generation = 0
        var closed = false
        /// Replacement workers, which are not children of the connection's task group.
        var replacements: [Task<Void, Never>] = []
        /// The reading loop, waiting for room in the queue.
        var waitingForRoom: CheckedContinuation<Void, Never>?

        var count: Int { pending.count - head }

        mutating func popFirst() -> Item? {
            guard head < pending.count else {
                pending.removeAll(keepingCapacity: true)
                head = 0
                return nil
            }
            let request = pending[head]
            head += 1
            if head >= 64 && head * 2 >= pending.count {
                pending.removeFirst(head)
                head = 0
            }
            return request
        }

        var isEmpty: Bool { head >= pending.count }
    }

    private let state = Mutex(State())
    /// Most requests queued before the reading loop waits.
    let highWater: Int
    private let bridge: Bridge
    private let context: BridgeContext
    private let deliver: @Sendable (JSONValue) -> Void
    private let respond: @Sendable (BridgeResponse) async -> Void

    init(
        bridge: Bridge, context: BridgeContext, highWater: Int = 1024, deliver: @escaping @Sendable (JSONValue) -> Void,
        respond: @escaping @Sendable (BridgeResponse) async -> Void
    ) {
        self.respond = respond
        self.highWater = highWater
        self.bridge = bridge
        self.context = context
        self.deliver = deliver
    }

    /// Whether no request is queued or being answered.
    var isIdle: Bool {
        state.withLock { !$0.workerRunning && $0.isEmpty }
    }

    /// Queues a routed request; starts a worker through `spawn` when none is running, and waits
    /// while the queue is full.
    func enqueue(
        _ request: BridgeRequest, route: Result<RoutedRequest, BridgeError>,
        spawn: (@escaping @Sendable () async -> Void) -> Void
    ) async {
        let (generation, full) = state.withLock { state -> (Int?, Bool) in
            guard !state.closed else { return (nil, false) }
            state.pending.append((request, route))
            let full = state.count >= highWater
            guard !state.workerRunning else { return (nil, full) }
            state.workerRunning = true
            return (state.generation, full)
        }
        if let generation { spawn { await self.work(generation: generation) } }
        guard full else { return }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                guard !state.closed, state.count >= highWater / 2 else { return true }
                state.waitingForRoom = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Stops taking requests and cancels replacement workers (the connection has ended).
    func close() {
        let (replacements, waiting) = state.withLock { state -> ([Task<Void, Never>], CheckedContinuation<Void, Never>?) in
            state.closed = true
            defer {
                state.replacements = []
                state.waitingForRoom = nil
            }
            return (state.replacements, state.waitingForRoom)
        }
        for task in replacements { task.cancel() }
        waiting?.resume()
    }

    private func work(generation: Int) async {
        while let item = next(generation: generation) {
            // Records the page sent together (recording commands waiting one after another) are
            // committed together: one hand-over to the database writer and one commit for the run.
            if case .success(let first) = item.route, first.route.command.recordHandler != nil {
                var run = [first]
                while run.count < Self.longestRecordRun, let more = next(generation: generation, onlyRecord: true) {
                    if case .success(let routed) = more.route { run.append(routed) }
                }
                if run.count > 1 {
                    await processRecords(run, generation: generation)
                    continue
                }
            }
            await process(item.request, route: item.route, generation: generation)
        }
    }

    /// Most records committed as one run.
    static let longestRecordRun = 256

    /// The next request; with `onlyRecord`, only when it is a recording command (and then the
    /// worker goes on, whatever is found).
    private func next(generation: Int, onlyRecord: Bool = false) -> Item? {
        let (item, room) = state.withLock { state -> (Item?, CheckedContinuation<Void, Never>?) in
            // An abandoned worker stops without touching the state its replacement now owns.
            guard state.generation == generation else { return (nil, nil) }
            if onlyRecord {
                guard !state.closed, !state.isEmpty, case .success(let routed) = state.pending[state.head].route,
                    routed.route.command.recordHandler != nil
                else { return (nil, nil) }
            }
            guard !state.closed, let item = state.popFirst() else {
                state.workerRunning = false
                return (nil, nil)
            }
            var room: CheckedContinuation<Void, Never>?
            if state.waitingForRoom != nil, state.count < highWater / 2 {
                room = state.waitingForRoom
                state.waitingForRoom = nil
            }
            return (item, room)
        }
        room?.resume()
        return item
    }

    private func process(_ request: BridgeRequest, route: Result<RoutedRequest, BridgeError>, generation: Int) async {
        switch route {
        case .failure(let error):
            await reply(bridge.finish(request, .failure(error), context: context, started: bridge.clock.instant))
        case .success(let routed):
            // Every earlier request of the page has been answered: what the dispatcher does for a
            // request that finds the queue idle is right here too. A command with an answer from
            // memory is answered from it when memory holds it (a memory command always is).
            if let answered = bridge.answerFromMemory(routed, context: context, { $0 }) {
                await reply(answered)
                return
            }
            // At the deadline the 504 is sent from the timer and this worker, stuck in the handler, is
            // abandoned; a fresh worker takes over the queue.
            await bridge.run(
                routed, context: context, deadline: routed.route.deadline,
                atDeadline: { [self] response in
                    send(response)
                    abandon(generation: generation)
                }, onTime: { await reply($0) })
        }
    }

    private func processRecords(_ run: [RoutedRequest], generation: Int) async {
        // At the deadline every record of the run is answered 504 from the timer, and this worker,
        // stuck in the commit, is abandoned; a fresh worker takes over the queue.
        await bridge.runRecords(
            run, context: context,
            atDeadline: { [self] responses in
                for response in responses { send(response) }
                abandon(generation: generation)
            },
            onTime: { responses in
                for response in responses { await reply(response) }
            })
    }

    /// Gives up on the worker of `generation` (stuck in a module) and lets a new one serve the queue.
    private func abandon(generation: Int) {
        let replacement = state.withLock { state -> Int? in
            guard state.generation == generation else { return nil }
            state.generation += 1
            guard !state.closed, !state.isEmpty else {
                state.workerRunning = false
                return nil
            }
            return state.generation
        }
        guard let replacement else { return }
        let task = Task { await self.work(generation: replacement) }
        let closed = state.withLock { state -> Bool in
            if !state.closed { state.replacements.append(task) }
            return state.closed
        }
        if closed { task.cancel() }
    }

    private func send(_ response: BridgeResponse?) {
        if let response { deliver(response.json) }
    }

    private func reply(_ response: BridgeResponse?) async {
        if let response { await respond(response) }
    }
}
