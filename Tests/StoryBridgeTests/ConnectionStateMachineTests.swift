import Testing

@testable import StoryBridge

/// One test per row of the transition table in docs/ENGINE.md: the machine alone, no socket, no
/// task, requests and messages as strings.
@Suite("Connection state machine")
struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine<String, String>

    static let ordered = Machine.Traits(scheduling: .ordered, hasMemoryAnswer: false)
    static let memory = Machine.Traits(scheduling: .ordered, hasMemoryAnswer: true)
    static let concurrent = Machine.Traits(scheduling: .concurrent, hasMemoryAnswer: false)
    static let record = Machine.Traits(scheduling: .record, hasMemoryAnswer: false)

    /// The machine under test, in a box whose methods forward each event: `#expect` takes the
    /// value an expression is called on by copy, which a non-copyable machine cannot give.
    final class Subject {
        private var state: Machine

        func frameArrived(onlyReadsMemory: Bool) -> Machine.FrameAction { state.frameArrived(onlyReadsMemory: onlyReadsMemory) }
        func pageLoadRecorded() { state.pageLoadRecorded() }
        func requestRouted(_ request: String, _ traits: Machine.Traits) -> Machine.RequestAction {
            state.requestRouted(request, traits)
        }
        func readingStopped() { state.readingStopped() }
        func nextJob(worker generation: Int) -> Machine.WorkerAction { state.nextJob(worker: generation) }
        func claim(_ ticket: Machine.Ticket) -> Machine.ClaimAction { state.claim(ticket) }
        func deadlineFired(_ ticket: Machine.Ticket) -> Machine.DeadlineAction { state.deadlineFired(ticket) }
        func workerAbandoned(timeouts: [String]) -> Machine.ReplacementAction { state.workerAbandoned(timeouts: timeouts) }
        func answerMade(_ message: String?, by answerer: Machine.Answerer) -> Machine.AnswerAction {
            state.answerMade(message, by: answerer)
        }
        func nextWrite() -> Machine.WriterAction { state.nextWrite() }
        func writeDone(succeeded: Bool) { state.writeDone(succeeded: succeeded) }
        func connectionClosed() { state.connectionClosed() }
        func park(_ waiter: Machine.Waiter) -> Bool { state.park(waiter) }
        func takeReleased() -> Machine.Waiters { state.takeReleased() }
        var queueIsIdle: Bool { state.queueIsIdle }
        var queuedRequests: Int { state.queuedRequests }
        var queuedMessages: Int { state.queuedMessages }
        var inFlight: Int { state.inFlight }
        var outboundClosed: Bool { state.outboundClosed }

        init(maxInFlight: Int, pageLoad: PageLoad) {
            var limits = Machine.Limits(maxInFlight: maxInFlight)
            limits.queueHighWater = 4
            limits.outboundHighWatermark = 4
            limits.outboundLowWatermark = 2
            limits.longestRecordRun = 3
            state = Machine(limits: limits, pageLoad: pageLoad)
        }
    }

    static func machine(maxInFlight: Int = 2, pageLoad: PageLoad = .recorded) -> Subject {
        Subject(maxInFlight: maxInFlight, pageLoad: pageLoad)
    }

    /// The ticket the worker of generation 0 owes for the one request queued as `traits`.
    static func runningOne(_ machine: Subject, _ traits: Machine.Traits = ordered) -> Machine.Ticket? {
        #expect(machine.requestRouted("r", traits) == .enqueued(startWorker: 0, waitForRoom: false))
        switch machine.nextJob(worker: 0) {
        case .run(_, let ticket), .answerFromMemoryElseRun(_, let ticket), .commitRecords(_, let ticket): return ticket
        case .stop: return nil
        }
    }

    // MARK: Page load

    @Test("page load recorded: a frame is dispatched")
    func frameAfterPageLoad() {
        let machine = Self.machine()
        #expect(machine.frameArrived(onlyReadsMemory: false) == .dispatch)
    }

    @Test("page load recording, keeping its session: a frame that only reads memory is dispatched")
    func readOnlyFrameGoesFirst() {
        let machine = Self.machine(pageLoad: .recording(readsMayGoFirst: true))
        #expect(machine.frameArrived(onlyReadsMemory: true) == .dispatch)
        #expect(machine.frameArrived(onlyReadsMemory: false) == .holdUntilPageLoad)
    }

    @Test("page load recording: any other frame (and the end of the connection) is held until it is recorded")
    func frameHeldUntilPageLoad() {
        let machine = Self.machine(pageLoad: .recording(readsMayGoFirst: false))
        #expect(machine.frameArrived(onlyReadsMemory: true) == .holdUntilPageLoad)
        #expect(machine.park(.reader(.pageLoad)))
        #expect(machine.takeReleased().isEmpty)
    }

    @Test("page load recorded: the held reading task goes on, and later frames are dispatched")
    func pageLoadReleasesTheReader() {
        let machine = Self.machine(pageLoad: .recording(readsMayGoFirst: false))
        #expect(machine.park(.reader(.pageLoad)))
        machine.pageLoadRecorded()
        #expect(machine.takeReleased() == .reader)
        #expect(machine.frameArrived(onlyReadsMemory: false) == .dispatch)
        #expect(!machine.park(.reader(.pageLoad)))
    }

    // MARK: Requests

    @Test("a request with a memory answer, queue idle: answered from memory now, whatever its scheduling")
    func memoryAnswerWhenIdle() {
        let machine = Self.machine()
        #expect(machine.requestRouted("m", Self.memory) == .answerFromMemory)
        #expect(machine.requestRouted("c", .init(scheduling: .concurrent, hasMemoryAnswer: true)) == .answerFromMemory)
        #expect(machine.queueIsIdle)
        #expect(machine.inFlight == 0)
    }

    @Test("a request with a memory answer, queue busy: queued, memory tried at its turn")
    func memoryAnswerWhenBusy() {
        let machine = Self.machine()
        #expect(machine.requestRouted("o", Self.ordered) == .enqueued(startWorker: 0, waitForRoom: false))
        #expect(machine.requestRouted("m", Self.memory) == .enqueued(startWorker: nil, waitForRoom: false))
        guard case .run("o", let first) = machine.nextJob(worker: 0) else {
            Issue.record("the ordered request first")
            return
        }
        #expect(machine.claim(first) == .answer)
        guard case .answerFromMemoryElseRun("m", _) = machine.nextJob(worker: 0) else {
            Issue.record("then the memory request, memory first")
            return
        }
    }

    @Test("a concurrent request under maxInFlight: spawned with its own ticket")
    func concurrentSpawned() {
        let machine = Self.machine()
        guard case .spawn(let first) = machine.requestRouted("c1", Self.concurrent),
            case .spawn(let second) = machine.requestRouted("c2", Self.concurrent)
        else {
            Issue.record("two spawned")
            return
        }
        #expect(first != second)
        #expect(machine.inFlight == 2)
        #expect(machine.queueIsIdle)
    }

    @Test("a concurrent request at maxInFlight: refused (429), and taken again once a place is free")
    func concurrentRefused() {
        let machine = Self.machine(maxInFlight: 1)
        guard case .spawn(let ticket) = machine.requestRouted("c1", Self.concurrent) else {
            Issue.record("spawned")
            return
        }
        #expect(machine.requestRouted("c2", Self.concurrent) == .refuseBusy)
        #expect(machine.claim(ticket) == .answer)
        #expect(machine.inFlight == 0)
        guard case .spawn = machine.requestRouted("c3", Self.concurrent) else {
            Issue.record("spawned again")
            return
        }
    }

    @Test("an ordered request or a record, worker idle: queued, and a worker of the current generation is started")
    func queuedStartsWorker() {
        let machine = Self.machine()
        #expect(machine.requestRouted("rec", Self.record) == .enqueued(startWorker: 0, waitForRoom: false))
        #expect(!machine.queueIsIdle)
    }

    @Test("an ordered request, worker running: queued behind, no second worker")
    func queuedBehindRunningWorker() {
        let machine = Self.machine()
        #expect(machine.requestRouted("a", Self.ordered) == .enqueued(startWorker: 0, waitForRoom: false))
        #expect(machine.requestRouted("b", Self.ordered) == .enqueued(startWorker: nil, waitForRoom: false))
        #expect(machine.queuedRequests == 2)
    }

    @Test("the queue at its high water: the reading task waits until the worker has taken half")
    func queueBackPressure() {
        let machine = Self.machine()
        for index in 0..<3 { _ = machine.requestRouted("r\(index)", Self.ordered) }
        #expect(machine.requestRouted("r3", Self.ordered) == .enqueued(startWorker: nil, waitForRoom: true))
        #expect(machine.park(.reader(.queueRoom)))
        _ = machine.nextJob(worker: 0)
        _ = machine.nextJob(worker: 0)
        #expect(machine.takeReleased().isEmpty)
        _ = machine.nextJob(worker: 0)
        #expect(machine.takeReleased() == .reader)
    }

    @Test("a request after the reading task stopped: dropped; what was queued still runs")
    func requestAfterReadingStopped() {
        let machine = Self.machine()
        _ = machine.requestRouted("queued", Self.ordered)
        machine.readingStopped()
        #expect(machine.requestRouted("late", Self.ordered) == .drop)
        guard case .run("queued", _) = machine.nextJob(worker: 0) else {
            Issue.record("the queued request still runs")
            return
        }
    }

    // MARK: The worker

    @Test("the worker finds the queue empty: it stops and the queue is idle")
    func workerStopsWhenEmpty() {
        let machine = Self.machine()
        let ticket = Self.runningOne(machine)
        #expect(ticket.map { machine.claim($0) } == .answer)
        #expect(machine.nextJob(worker: 0) == .stop)
        #expect(machine.queueIsIdle)
    }

    @Test("an abandoned worker (older generation) stops without taking a job")
    func staleWorkerStops() {
        let machine = Self.machine()
        let ticket = Self.runningOne(machine)
        _ = machine.requestRouted("next", Self.ordered)
        #expect(ticket.map { machine.deadlineFired($0) } == .answerTimeoutAndReplaceWorker)
        #expect(machine.nextJob(worker: 0) == .stop)
        #expect(machine.queuedRequests == 1)
    }

    @Test("a request queued with a memory answer comes out as memory first, else its handler")
    func memoryFirstJob() {
        let machine = Self.machine()
        _ = machine.requestRouted("o", Self.ordered)
        _ = machine.requestRouted("m", Self.memory)
        _ = machine.nextJob(worker: 0)
        guard case .answerFromMemoryElseRun("m", _) = machine.nextJob(worker: 0) else {
            Issue.record("memory first")
            return
        }
    }

    @Test("an ordered request comes out to be run with its handler, owed under a fresh ticket")
    func handlerJob() {
        let machine = Self.machine()
        _ = machine.requestRouted("o", Self.ordered)
        guard case .run("o", let ticket) = machine.nextJob(worker: 0) else {
            Issue.record("run")
            return
        }
        #expect(machine.claim(ticket) == .answer)
    }

    @Test("records one after another come out as one run, a lone record as a run of one, up to the longest run")
    func recordRuns() {
        let machine = Self.machine()
        _ = machine.requestRouted("r1", Self.record)
        _ = machine.requestRouted("r2", Self.record)
        _ = machine.requestRouted("o", Self.ordered)
        _ = machine.requestRouted("r3", Self.record)
        #expect(machine.requestRouted("r4", Self.record) == .enqueued(startWorker: nil, waitForRoom: true))
        _ = machine.requestRouted("r5", Self.record)
        _ = machine.requestRouted("r6", Self.record)
        var runs: [[String]] = []
        while true {
            switch machine.nextJob(worker: 0) {
            case .commitRecords(let run, let ticket):
                runs.append(run)
                #expect(machine.claim(ticket) == .answer)
            case .run(let request, let ticket):
                runs.append([request])
                #expect(machine.claim(ticket) == .answer)
            case .answerFromMemoryElseRun: Issue.record("no memory request was queued")
            case .stop:
                #expect(runs == [["r1", "r2"], ["o"], ["r3", "r4", "r5"], ["r6"]])
                return
            }
        }
    }

    // MARK: Answers and deadlines

    @Test("a handler's answer, owed: it answers")
    func claimOwed() {
        let machine = Self.machine()
        let ticket = Self.runningOne(machine)
        #expect(ticket.map { machine.claim($0) } == .answer)
        #expect(ticket.map { machine.deadlineFired($0) } == .alreadyAnswered)
    }

    @Test("a handler's answer after its deadline: dropped")
    func claimLate() {
        let machine = Self.machine()
        let ticket = Self.runningOne(machine)
        #expect(ticket.map { machine.deadlineFired($0) } == .answerTimeoutAndReplaceWorker)
        #expect(ticket.map { machine.claim($0) } == .dropLate)
    }

    @Test("an answer in order, nothing queued or being written: written by the task that made it")
    func writeNow() {
        let machine = Self.machine()
        #expect(machine.answerMade("a", by: .reader) == .writeNow)
        machine.writeDone(succeeded: true)
        #expect(machine.answerMade("b", by: .worker) == .writeNow)
        #expect(machine.queuedMessages == 0)
    }

    @Test("an answer in order while another is being written or queued: queued behind it")
    func queuedBehindWrite() {
        let machine = Self.machine()
        #expect(machine.answerMade("a", by: .reader) == .writeNow)
        #expect(machine.answerMade("b", by: .worker) == .queued)
        machine.writeDone(succeeded: true)
        // Still behind "b", which is queued.
        #expect(machine.answerMade("c", by: .reader) == .queued)
        #expect(machine.queuedMessages == 2)
    }

    @Test("an answer in order at the high watermark: the answering task waits until the queue is under the low one")
    func outboundBackPressure() {
        let machine = Self.machine()
        #expect(machine.answerMade("a", by: .reader) == .writeNow)
        for message in ["b", "c", "d"] { #expect(machine.answerMade(message, by: .worker) == .queued) }
        #expect(machine.answerMade("e", by: .worker) == .queuedWaitForRoom)
        #expect(machine.park(.worker))
        machine.writeDone(succeeded: true)
        #expect(machine.nextWrite() == .write("b"))
        machine.writeDone(succeeded: true)
        #expect(machine.nextWrite() == .write("c"))
        #expect(machine.takeReleased().isEmpty)
        machine.writeDone(succeeded: true)
        #expect(machine.nextWrite() == .write("d"))
        #expect(machine.takeReleased() == .worker)
    }

    @Test("an answer or event from elsewhere: queued for the writer, never written by its maker, never waiting")
    func sentFromElsewhere() {
        let machine = Self.machine()
        #expect(machine.nextWrite() == .park)
        #expect(machine.park(.writer))
        for index in 0..<6 { #expect(machine.answerMade("e\(index)", by: .elsewhere) == .queued) }
        #expect(machine.takeReleased() == .writer)
        #expect(machine.nextWrite() == .write("e0"))
    }

    @Test("a request without a GUID: nothing to write")
    func nothingToWrite() {
        let machine = Self.machine()
        #expect(machine.answerMade(nil, by: .reader) == .nothingToWrite)
        #expect(machine.answerMade(nil, by: .elsewhere) == .nothingToWrite)
        #expect(machine.queuedMessages == 0)
    }

    @Test("an answer after the connection closed: dropped")
    func answerAfterClose() {
        let machine = Self.machine()
        machine.connectionClosed()
        #expect(machine.answerMade("a", by: .reader) == .drop)
        #expect(machine.answerMade("b", by: .elsewhere) == .drop)
    }

    @Test("the worker's deadline: 504, the worker abandoned, the queue not idle until the 504 is out")
    func orderedDeadline() {
        let machine = Self.machine()
        let ticket = Self.runningOne(machine)
        #expect(ticket.map { machine.deadlineFired($0) } == .answerTimeoutAndReplaceWorker)
        #expect(!machine.queueIsIdle)
        // A memory request meanwhile waits its turn, behind the 504.
        #expect(machine.requestRouted("m", Self.memory) == .enqueued(startWorker: nil, waitForRoom: false))
    }

    @Test("the abandoned worker's 504 out, requests queued: queued before later answers, and a fresh worker takes the queue")
    func replacementStarted() {
        let machine = Self.machine()
        let ticket = Self.runningOne(machine)
        _ = machine.requestRouted("next", Self.ordered)
        _ = ticket.map { machine.deadlineFired($0) }
        #expect(machine.workerAbandoned(timeouts: ["504"]) == .startWorker(1))
        guard case .run("next", _) = machine.nextJob(worker: 1) else {
            Issue.record("the fresh worker takes the queue")
            return
        }
        #expect(machine.answerMade("next answer", by: .worker) == .queued)
        #expect(machine.nextWrite() == .write("504"))
    }

    @Test("the abandoned worker's 504 out, nothing queued: the queue is idle")
    func replacementNotNeeded() {
        let machine = Self.machine()
        let ticket = Self.runningOne(machine)
        _ = ticket.map { machine.deadlineFired($0) }
        #expect(machine.workerAbandoned(timeouts: ["504"]) == .idle)
        #expect(machine.queueIsIdle)
        #expect(machine.queuedMessages == 1)
    }

    @Test("a concurrent request's deadline: 504 and its handler cancelled, its place in flight freed")
    func concurrentDeadline() {
        let machine = Self.machine(maxInFlight: 1)
        guard case .spawn(let ticket) = machine.requestRouted("c", Self.concurrent) else {
            Issue.record("spawned")
            return
        }
        #expect(machine.deadlineFired(ticket) == .answerTimeoutAndCancel)
        #expect(machine.inFlight == 0)
        #expect(machine.claim(ticket) == .dropLate)
    }

    @Test("a deadline after the answer: nothing")
    func deadlineAfterAnswer() {
        let machine = Self.machine()
        guard case .spawn(let ticket) = machine.requestRouted("c", Self.concurrent) else {
            Issue.record("spawned")
            return
        }
        #expect(machine.claim(ticket) == .answer)
        #expect(machine.deadlineFired(ticket) == .alreadyAnswered)
    }

    // MARK: The writer

    @Test("the writer, a message queued and nothing being written: writes it")
    func writerWrites() {
        let machine = Self.machine()
        _ = machine.answerMade("a", by: .elsewhere)
        #expect(machine.nextWrite() == .write("a"))
        #expect(machine.answerMade("b", by: .reader) == .queued)
    }

    @Test("the writer, nothing queued or an answering task writing: waits")
    func writerParks() {
        let machine = Self.machine()
        #expect(machine.nextWrite() == .park)
        #expect(machine.answerMade("a", by: .reader) == .writeNow)
        _ = machine.answerMade("b", by: .elsewhere)
        #expect(machine.nextWrite() == .park)
        #expect(machine.park(.writer))
        #expect(machine.takeReleased().isEmpty)
    }

    @Test("a write done: the waiting writer goes on when something is queued")
    func writeDoneReleasesWriter() {
        let machine = Self.machine()
        #expect(machine.answerMade("a", by: .reader) == .writeNow)
        _ = machine.answerMade("b", by: .elsewhere)
        #expect(machine.park(.writer))
        machine.writeDone(succeeded: true)
        #expect(machine.takeReleased() == .writer)
        #expect(machine.nextWrite() == .write("b"))
    }

    @Test("a write failed: the connection is gone, the writer stops")
    func writeFailed() {
        let machine = Self.machine()
        _ = machine.answerMade("a", by: .elsewhere)
        _ = machine.answerMade("b", by: .elsewhere)
        #expect(machine.nextWrite() == .write("a"))
        machine.writeDone(succeeded: false)
        #expect(machine.outboundClosed)
        #expect(machine.nextWrite() == .stop)
    }

    @Test("the connection closed: what is queued is dropped, the writer stops, every waiting task goes on")
    func connectionClosed() {
        let machine = Self.machine()
        #expect(machine.answerMade("a", by: .reader) == .writeNow)
        for message in ["b", "c", "d"] { _ = machine.answerMade(message, by: .worker) }
        #expect(machine.answerMade("e", by: .worker) == .queuedWaitForRoom)
        #expect(machine.park(.worker))
        #expect(machine.park(.writer))
        #expect(machine.park(.reader(.drained)))
        machine.connectionClosed()
        #expect(machine.takeReleased() == [.worker, .writer, .reader])
        #expect(machine.queuedMessages == 0)
        #expect(machine.nextWrite() == .stop)
    }

    @Test("drained: the waiting task goes on once nothing is owed, queued or being written")
    func drained() {
        let machine = Self.machine()
        let ticket = Self.runningOne(machine)
        #expect(machine.park(.reader(.drained)))
        #expect(ticket.map { machine.claim($0) } == .answer)
        #expect(machine.answerMade("a", by: .worker) == .writeNow)
        #expect(machine.nextJob(worker: 0) == .stop)
        #expect(machine.takeReleased().isEmpty)
        machine.writeDone(succeeded: true)
        #expect(machine.takeReleased() == .reader)
    }
}
