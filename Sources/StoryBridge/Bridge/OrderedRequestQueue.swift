import Synchronization

/// Runs one connection's queued requests one after another on a worker task, so the loop that
/// reads the page's frames never waits for a module and a burst of pipelined requests costs one
/// task instead of one per request.
///
/// The worker runs each ``Job`` as ``FrameDispatcher`` queued it, without routing or deciding
/// again: records waiting one after another are committed together (`Bridge.runRecords`), an
/// unknown command is answered 400, a request is run with its deadline. A request with an answer
/// from memory is offered to it first: the dispatcher's "answer now", deferred to its turn.
///
/// A request whose handler outlives its deadline is answered 504 by the bridge's timer (the one
/// deadline mechanism, in `Bridge.run`); the stuck worker is abandoned (its late answer is dropped)
/// and a fresh worker takes over the rest of the queue, so a hung module cannot stall its page.
///
/// The queue holds at most ``highWater`` requests: past that the reading loop waits until the
/// worker has drained half of them, so a page that floods the host is slowed by TCP back-pressure
/// instead of growing the host's memory.
final class OrderedRequestQueue: Sendable {
    /// What the dispatcher queued.
    enum Job: Sendable {
        /// An ordered (or memory) request: its answer from memory when memory holds it, else its handler.
        case request(RoutedRequest)
        /// A recording command, committed with the records queued right after it.
        case record(RoutedRequest)
        /// A command no module answers (400).
        case unknown(BridgeRequest)
    }

    private struct State {
        var pending: [Job] = []
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

        mutating func popFirst() -> Job? {
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
    private let answers: AnswerSink

    init(bridge: Bridge, context: BridgeContext, highWater: Int = 1024, answers: AnswerSink) {
        self.highWater = highWater
        self.bridge = bridge
        self.context = context
        self.answers = answers
    }

    /// Whether no request is queued or being answered.
    var isIdle: Bool {
        state.withLock { !$0.workerRunning && $0.isEmpty }
    }

    /// Queues a job; starts a worker through `spawn` when none is running, and waits while the
    /// queue is full.
    func enqueue(_ job: Job, spawn: (@escaping @Sendable () async -> Void) -> Void) async {
        let (generation, full) = state.withLock { state -> (Int?, Bool) in
            guard !state.closed else { return (nil, false) }
            state.pending.append(job)
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

    /// Stops taking requests (the connection has ended) and cancels replacement workers. What is
    /// queued still runs, within its deadline: a request sent just before the page left (a `go`
    /// without a callback) takes effect, as when such commands ran on the reading task.
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
        while let job = next(generation: generation) {
            switch job {
            case .request(let routed):
                await process(routed, generation: generation)
            case .record(let first):
                // Records the page sent together are committed together: one hand-over to the
                // database writer and one commit for the run.
                var run = [first]
                while run.count < Self.longestRecordRun, case .record(let more)? = next(generation: generation, onlyRecord: true) {
                    run.append(more)
                }
                if run.count > 1 {
                    await processRecords(run, generation: generation)
                } else {
                    await process(first, generation: generation)
                }
            case .unknown(let request):
                let error = BridgeError.unknownCommand(CommandNames.canonical(request.command))
                await answers.write(bridge.finish(request, .failure(error), context: context, started: bridge.clock.instant) { $0 })
            }
        }
    }

    /// Most records committed as one run.
    static let longestRecordRun = 256

    /// The next request; with `onlyRecord`, only when it is a recording command (and then the
    /// worker goes on, whatever is found).
    private func next(generation: Int, onlyRecord: Bool = false) -> Job? {
        let (item, room) = state.withLock { state -> (Job?, CheckedContinuation<Void, Never>?) in
            // An abandoned worker stops without touching the state its replacement now owns.
            guard state.generation == generation else { return (nil, nil) }
            if onlyRecord {
                guard !state.isEmpty, case .record = state.pending[state.head] else { return (nil, nil) }
            }
            guard let item = state.popFirst() else {
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

    private func process(_ routed: RoutedRequest, generation: Int) async {
        // The dispatcher's "answer now", deferred to this request's turn: a memory command is
        // always answered here, an ordered command with an answer from memory when memory holds it.
        if let answered = bridge.answerFromMemory(routed, context: context, { $0 }) {
            await answers.write(answered)
            return
        }
        // At the deadline the 504 is sent from the timer and this worker, stuck in the handler, is
        // abandoned; a fresh worker takes over the queue.
        await bridge.run(
            routed, context: context, deadline: routed.route.deadline,
            atDeadline: { [self] response in
                answers.send(response)
                abandon(generation: generation)
            }, onTime: { await answers.write($0) })
    }

    private func processRecords(_ run: [RoutedRequest], generation: Int) async {
        // At the deadline every record of the run is answered 504 from the timer, and this worker,
        // stuck in the commit, is abandoned; a fresh worker takes over the queue.
        await bridge.runRecords(
            run, context: context,
            atDeadline: { [self] responses in
                for response in responses { answers.send(response) }
                abandon(generation: generation)
            },
            onTime: { responses in
                for response in responses { await answers.write(response) }
            })
    }

    /// Gives up on the worker of `generation` (stuck in a module) and lets a new one serve the queue.
    private func abandon(generation: Int) {
        let replacement = state.withLock { state -> Int? in
            guard state.generation == generation else { return nil }
            state.generation += 1
            guard !state.isEmpty else {
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
}
