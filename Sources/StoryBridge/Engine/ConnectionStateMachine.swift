import NIOCore

/// Whether a page connection's requests wait for its page load to be recorded.
package enum PageLoad: Sendable, Equatable {
    /// The page load's records (slide view, session) are written: every request runs.
    case recorded
    /// Being written: requests wait for it, except, with `readsMayGoFirst` (a page load that keeps
    /// its session), frames whose every request only reads memory (`.fromMemory(.readsOnly)`).
    case recording(readsMayGoFirst: Bool)
}

/// Everything one page connection decides, as one plain value: when the page load lets requests
/// through, which request is answered now, queued, run on a task of its own or refused, which
/// answer is still owed (its handler's or its deadline's), when the page's worker is replaced,
/// whether an answer is written by the task that made it or queued for the writer, and who waits
/// for what. No lock, no task, no continuation: each event (a method) changes the state and
/// returns what the caller must do, an action. ``PageConnection`` drives it under its one lock
/// and does the actions; docs/ENGINE.md has the transition table.
///
/// `Request` is what a queued request carries, `Message` one outbound text frame; both are
/// opaque here (the unit tests use strings).
struct ConnectionStateMachine<Request: Sendable, Message: Sendable>: ~Copyable {
    /// The connection's bounds.
    struct Limits: Sendable {
        /// Most concurrent requests in flight; more are refused (429).
        var maxInFlight: Int
        /// Requests queued in the page's order before the reading task waits, until half are done.
        var queueHighWater = 1024
        /// Messages queued for the writer before an answering task waits...
        var outboundHighWatermark = 256
        /// ... until fewer than this many are queued.
        var outboundLowWatermark = 64
        /// Most records committed as one run.
        var longestRecordRun = 256
    }

    /// How a routed request runs, as its route says.
    enum Scheduling: Sendable, Equatable {
        /// In the page's order, by the page's worker (unknown commands too: their 400 keeps its place).
        case ordered
        /// On a task of its own, counted in flight.
        case concurrent
        /// In the page's order, committed with the records queued right after it.
        case record
    }

    /// What the machine needs to know of a request.
    struct Traits: Sendable, Equatable {
        var scheduling: Scheduling
        /// Its command may be answered from memory (``BridgeCommand/answeringFromMemory(_:)``).
        var hasMemoryAnswer: Bool
    }

    /// An answer still owed: by the handler of a request that has a deadline, or by that deadline.
    /// Whichever claims it first answers.
    struct Ticket: Hashable, Sendable {
        let number: UInt64
    }

    /// Who made an answer, which says how it leaves.
    enum Answerer: Sendable, Equatable {
        /// The reading task (an answer from memory): may write it itself, waits for room.
        case reader
        /// The page's worker: may write it itself, waits for room.
        case worker
        /// Anyone else (a concurrent request's task, the deadline timer, a refusal, a host event):
        /// queued, never waits.
        case elsewhere
    }

    /// What the reading task may wait for.
    enum ReaderWait: Sendable, Equatable {
        case pageLoad
        case queueRoom
        case outboundRoom
        /// Nothing owed and nothing left to write (``PageConnection/drained()``).
        case drained
    }

    /// A task the machine holds up.
    enum Waiter: Sendable, Equatable {
        case reader(ReaderWait)
        case worker
        case writer
    }

    /// The waiting tasks to let go on.
    struct Waiters: OptionSet, Sendable {
        let rawValue: UInt8
        // Computed: a type nested in a generic one cannot have static stored properties.
        static var reader: Waiters { Waiters(rawValue: 1) }
        static var worker: Waiters { Waiters(rawValue: 2) }
        static var writer: Waiters { Waiters(rawValue: 4) }
    }

    /// A queued request and how its turn goes.
    private enum Job {
        /// Its answer from memory, else its handler.
        case memoryFirst(Request)
        case handler(Request)
        case record(Request)
    }

    /// The page's worker.
    private enum Worker: Equatable {
        case idle
        case running(generation: Int)
        /// The worker was abandoned at a deadline; its 504 is on its way out, then a fresh worker
        /// takes over the queue (``workerAbandoned(timeouts:)``).
        case replacing
    }

    let limits: Limits
    private(set) var pageLoad: PageLoad
    private var pending = CircularBuffer<Job>()
    private var worker = Worker.idle
    /// Bumped when a worker is abandoned: a worker of an older generation stops.
    private var generation = 0
    /// The answer owed by the worker's current job.
    private var orderedTicket: Ticket?
    /// The answers owed by concurrent requests: one per request in flight.
    private var concurrent: Set<Ticket> = []
    private var lastTicket: UInt64 = 0
    /// The reading task has stopped taking requests (the connection ended); what is queued still runs.
    private(set) var readingEnded = false
    private var outbound = CircularBuffer<Message>()
    /// A message is being written, by the writer or by the task that made it.
    private var writing = false
    /// The connection is gone: nothing more is written.
    private(set) var outboundClosed = false
    private var parkedReader: ReaderWait?
    private var parkedWorker = false
    private var parkedWriter = false

    init(limits: Limits, pageLoad: PageLoad = .recorded) {
        self.limits = limits
        self.pageLoad = pageLoad
    }

    /// No request queued or being answered in the page's order.
    var queueIsIdle: Bool { worker == .idle && pending.isEmpty }
    /// Requests waiting in the page's queue.
    var queuedRequests: Int { pending.count }
    /// Messages waiting for the writer.
    var queuedMessages: Int { outbound.count }
    /// Concurrent requests in flight.
    var inFlight: Int { concurrent.count }

    private mutating func newTicket() -> Ticket {
        lastTicket += 1
        return Ticket(number: lastTicket)
    }

    // MARK: The page load

    /// What the reading task does with a frame.
    enum FrameAction: Sendable, Equatable {
        case dispatch
        /// Wait (``Waiter/reader(_:)`` with ``ReaderWait/pageLoad``) until the page load is recorded.
        case holdUntilPageLoad
    }

    /// A frame was read (`onlyReadsMemory`: each of its requests is `.fromMemory(.readsOnly)`); the
    /// end of the connection is a frame that does not only read.
    func frameArrived(onlyReadsMemory: Bool) -> FrameAction {
        switch pageLoad {
        case .recorded: return .dispatch
        case .recording(let readsMayGoFirst): return readsMayGoFirst && onlyReadsMemory ? .dispatch : .holdUntilPageLoad
        }
    }

    /// The page load is recorded: the reading task, held, goes on.
    mutating func pageLoadRecorded() {
        pageLoad = .recorded
    }

    // MARK: Requests

    /// The one decision for one request.
    enum RequestAction: Sendable, Equatable {
        /// Answer it now from memory on the reading task; when memory does not hold it, route it
        /// again without a memory answer.
        case answerFromMemory
        /// Run it on a task of its own; its answer is owed under `ticket`.
        case spawn(Ticket)
        /// 429: too many in flight.
        case refuseBusy
        /// Queued in the page's order; start the worker of `startWorker`; with `waitForRoom`, the
        /// reading task waits (``ReaderWait/queueRoom``).
        case enqueued(startWorker: Int?, waitForRoom: Bool)
        /// The connection no longer takes requests.
        case drop
    }

    /// A request was routed (an unknown command is `.ordered` with no memory answer).
    mutating func requestRouted(_ request: Request, _ traits: Traits) -> RequestAction {
        guard !readingEnded else { return .drop }
        // Memory answers only when nothing of the page is waiting: the page's earlier requests are
        // answered and their writes committed. Whatever the request's scheduling.
        if traits.hasMemoryAnswer && queueIsIdle { return .answerFromMemory }
        switch traits.scheduling {
        case .concurrent:
            guard concurrent.count < limits.maxInFlight else { return .refuseBusy }
            let ticket = newTicket()
            concurrent.insert(ticket)
            return .spawn(ticket)
        case .ordered: pending.append(traits.hasMemoryAnswer ? .memoryFirst(request) : .handler(request))
        case .record: pending.append(.record(request))
        }
        var start: Int?
        if worker == .idle {
            worker = .running(generation: generation)
            start = generation
        }
        return .enqueued(startWorker: start, waitForRoom: pending.count >= limits.queueHighWater)
    }

    /// The reading task takes no more requests (the connection ended). What is queued still runs,
    /// within its deadline.
    mutating func readingStopped() {
        readingEnded = true
    }

    // MARK: The page's worker

    /// The worker's next job.
    enum WorkerAction: Sendable {
        /// Nothing queued (the worker is idle now), or this worker was abandoned.
        case stop
        /// Answer from memory, else run the handler (with its deadline); owed under the ticket.
        case answerFromMemoryElseRun(Request, Ticket)
        /// Run the handler (with its deadline).
        case run(Request, Ticket)
        /// Prepare and commit these records together (one deadline, the shortest).
        case commitRecords([Request], Ticket)
    }

    /// The worker of `generation` asks for its next job.
    mutating func nextJob(worker generation: Int) -> WorkerAction {
        guard worker == .running(generation: generation) else { return .stop }
        guard let job = pending.popFirst() else {
            worker = .idle
            return .stop
        }
        let ticket = newTicket()
        orderedTicket = ticket
        switch job {
        case .memoryFirst(let request): return .answerFromMemoryElseRun(request, ticket)
        case .handler(let request): return .run(request, ticket)
        case .record(let first):
            var run = [first]
            while run.count < limits.longestRecordRun, case .record(let next)? = pending.first {
                pending.removeFirst()
                run.append(next)
            }
            return .commitRecords(run, ticket)
        }
    }

    // MARK: Answers and deadlines

    /// Whose an owed answer is.
    enum ClaimAction: Sendable, Equatable {
        /// The handler's: make the answer (``answerMade(_:by:)``).
        case answer
        /// Its deadline answered 504 first: drop it.
        case dropLate
    }

    /// A handler of a request owed under `ticket` has answered.
    mutating func claim(_ ticket: Ticket) -> ClaimAction {
        if orderedTicket == ticket {
            orderedTicket = nil
            return .answer
        }
        return concurrent.remove(ticket) == nil ? .dropLate : .answer
    }

    /// What becomes of a deadline.
    enum DeadlineAction: Sendable, Equatable {
        /// Answered already.
        case alreadyAnswered
        /// A concurrent request: cancel its handler, send the 504.
        case answerTimeoutAndCancel
        /// The worker's request (or record run): the worker is abandoned, stuck in it; make the 504s
        /// and hand them to ``workerAbandoned(timeouts:)``.
        case answerTimeoutAndReplaceWorker
    }

    /// The deadline of the request owed under `ticket` has passed.
    mutating func deadlineFired(_ ticket: Ticket) -> DeadlineAction {
        if orderedTicket == ticket {
            orderedTicket = nil
            // The stuck worker stops at its next look; until the 504 is out, nobody takes the queue.
            generation += 1
            worker = .replacing
            return .answerTimeoutAndReplaceWorker
        }
        return concurrent.remove(ticket) == nil ? .alreadyAnswered : .answerTimeoutAndCancel
    }

    /// What comes after an abandoned worker's 504.
    enum ReplacementAction: Sendable, Equatable {
        /// Nothing is queued: the queue is idle.
        case idle
        /// Start a fresh worker of this generation on the queue.
        case startWorker(Int)
    }

    /// The 504s of the abandoned worker's request(s) are made: they are queued before anything the
    /// page's later requests answer, then a fresh worker takes over the queue (or it is idle).
    mutating func workerAbandoned(timeouts: [Message]) -> ReplacementAction {
        for message in timeouts where !outboundClosed { outbound.append(message) }
        guard worker == .replacing else { return .idle }
        guard !pending.isEmpty else {
            worker = .idle
            return .idle
        }
        worker = .running(generation: generation)
        return .startWorker(generation)
    }

    // MARK: Writing

    /// How an answer (or host event) leaves.
    enum AnswerAction: Sendable, Equatable {
        /// Nothing queued or being written: the task that made it writes it, then ``writeDone(succeeded:)``.
        case writeNow
        /// Queued for the writer.
        case queued
        /// Queued, and the queue is full: the answering task waits (its ``Waiter``) for room.
        case queuedWaitForRoom
        /// A request without a GUID: nothing to write.
        case nothingToWrite
        /// The connection is gone.
        case drop
    }

    /// An answer (`nil`: a request without a GUID) or host event was made by `answerer`.
    mutating func answerMade(_ message: Message?, by answerer: Answerer) -> AnswerAction {
        guard let message else { return .nothingToWrite }
        guard !outboundClosed else { return .drop }
        let inOrder = answerer != .elsewhere
        if inOrder && !writing && outbound.isEmpty {
            writing = true
            return .writeNow
        }
        outbound.append(message)
        return inOrder && outbound.count >= limits.outboundHighWatermark ? .queuedWaitForRoom : .queued
    }

    /// The writer's next step.
    enum WriterAction: Sendable {
        case write(Message)
        /// Nothing to write (or someone is writing): wait (``Waiter/writer``).
        case park
        /// The connection is gone.
        case stop
    }

    /// The writer asks for a message to write.
    mutating func nextWrite() -> WriterAction {
        guard !outboundClosed else { return .stop }
        guard !writing, let message = outbound.popFirst() else { return .park }
        writing = true
        return .write(message)
    }

    /// A write (by the writer or an answering task) is done; a failed one means the connection is gone.
    mutating func writeDone(succeeded: Bool) {
        writing = false
        if !succeeded { connectionClosed() }
    }

    /// The connection is gone: what is queued is dropped, nothing more is written, and every
    /// waiting task goes on.
    mutating func connectionClosed() {
        outboundClosed = true
        outbound.removeAll()
    }

    // MARK: Waiting

    /// `waiter` asks to wait: `true` when it must (it is then held until ``takeReleased()``
    /// names it), `false` when it may go on at once.
    mutating func park(_ waiter: Waiter) -> Bool {
        guard mustWait(waiter) else { return false }
        switch waiter {
        case .reader(let reason): parkedReader = reason
        case .worker: parkedWorker = true
        case .writer: parkedWriter = true
        }
        return true
    }

    /// The held tasks that may go on now (no longer held). The driver asks after every event.
    mutating func takeReleased() -> Waiters {
        var released: Waiters = []
        if let reason = parkedReader, !mustWait(.reader(reason)) {
            parkedReader = nil
            released.insert(.reader)
        }
        if parkedWorker, !mustWait(.worker) {
            parkedWorker = false
            released.insert(.worker)
        }
        if parkedWriter, !mustWait(.writer) {
            parkedWriter = false
            released.insert(.writer)
        }
        return released
    }

    private func mustWait(_ waiter: Waiter) -> Bool {
        switch waiter {
        case .reader(.pageLoad): return pageLoad != .recorded
        case .reader(.queueRoom): return pending.count >= limits.queueHighWater / 2
        case .reader(.outboundRoom), .worker: return !outboundClosed && outbound.count >= limits.outboundLowWatermark
        case .reader(.drained):
            return !outboundClosed && (worker != .idle || orderedTicket != nil || !concurrent.isEmpty || writing || !outbound.isEmpty)
        case .writer: return !outboundClosed && (writing || outbound.isEmpty)
        }
    }
}

extension ConnectionStateMachine.WorkerAction: Equatable where Request: Equatable {}
extension ConnectionStateMachine.WriterAction: Equatable where Message: Equatable {}
