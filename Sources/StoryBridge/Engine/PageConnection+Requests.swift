import NIOCore

extension PageConnection {
    typealias Ticket = Machine.Ticket

    /// The page's worker of `generation`: runs the queued jobs one after another, as the machine
    /// hands them out, until the queue is empty or the worker is abandoned at a deadline.
    func work(generation: Int) async {
        var bytes: [UInt8] = []
        while true {
            switch withMachine({ $0.nextJob(worker: generation) }) {
            case .stop: return
            case .answerFromMemoryElseRun(let item, let ticket):
                // Deferred to its turn: memory answers when it holds the answer.
                if case .routed(let routed) = item, let answered = answerFromMemory(routed, into: &bytes) {
                    guard withMachine({ $0.claim(ticket) }) == .answer else { continue }
                    await deliver(answered ? ByteBuffer(bytes: bytes) : nil, by: .worker)
                } else {
                    await runOrdered(item, owed: ticket)
                }
            case .run(let item, let ticket): await runOrdered(item, owed: ticket)
            case .commitRecords(let items, let ticket): await commitRecords(items, owed: ticket)
            }
        }
    }

    /// Runs one queued request on the worker, within its deadline.
    private func runOrdered(_ item: RoutedFrame.Item, owed ticket: Ticket) async {
        let started = bridge.clock.instant
        let request: BridgeRequest
        let result: Result<ModuleReply, BridgeError>
        switch item {
        case .unreadable(let error):
            // Never queued (refused by the reading task); its ticket is given back all the same.
            withMachine { $0.claim(ticket) }
            return reject(error)
        case .unknown(let unknown):
            request = unknown
            result = .failure(.unknownCommand(CommandNames.canonical(unknown.command)))
        case .routed(let routed):
            request = routed.request
            // At the deadline the 504 is sent from the timer and this worker, stuck in the
            // handler, is abandoned; a fresh worker takes over the queue.
            let timeout = routed.route.deadline.map { scheduleDeadline(owed: ticket, of: [routed], after: $0, started: started) }
            result = await Bridge.invoke(routed, context: context)
            if let timeout { bridge.timer.cancel(timeout) }
        }
        guard withMachine({ $0.claim(ticket) }) == .answer else { return }
        await deliver(message(bridge.finish(request, result, context: context, started: started) { $0 }), by: .worker)
    }

    /// Prepares and commits a run of records (a lone record is a run of one), within the shortest
    /// of their deadlines, and answers each in the order sent once the commit is done.
    private func commitRecords(_ items: [RoutedFrame.Item], owed ticket: Ticket) async {
        let run = items.compactMap { item -> RoutedRequest? in
            if case .routed(let routed) = item { return routed }
            return nil
        }
        let started = bridge.clock.instant
        let timeout = run.compactMap(\.route.deadline).min().map {
            scheduleDeadline(owed: ticket, of: run, after: $0, started: started)
        }
        let outcomes = await bridge.commitRecords(run, context: context)
        if let timeout { bridge.timer.cancel(timeout) }
        guard withMachine({ $0.claim(ticket) }) == .answer else { return }
        for (routed, outcome) in zip(run, outcomes) {
            await deliver(message(bridge.finish(routed.request, outcome, context: context, started: started) { $0 }), by: .worker)
        }
    }

    /// Runs a concurrent request on its own task (a child of the connection's task group),
    /// cancelled at its deadline; its answer is queued for the writer.
    func runConcurrent(_ routed: RoutedRequest, owed ticket: Ticket) async {
        let started = bridge.clock.instant
        let result: Result<ModuleReply, BridgeError>
        if let deadline = routed.route.deadline {
            let handler = Task { [context] in await Bridge.invoke(routed, context: context) }
            let timeout = scheduleDeadline(owed: ticket, of: [routed], after: deadline, started: started, cancelling: handler)
            result = await withTaskCancellationHandler {
                await handler.value
            } onCancel: {
                handler.cancel()
            }
            bridge.timer.cancel(timeout)
        } else {
            result = await Bridge.invoke(routed, context: context)
        }
        guard withMachine({ $0.claim(ticket) }) == .answer else { return }
        send(bridge.finish(routed.request, result, context: context, started: started) { $0 })
    }

    /// Schedules the deadline of the answer owed under `ticket` for `requests` (one request, or a
    /// run of records) on the bridge's timer; returns the timer's id.
    private func scheduleDeadline(
        owed ticket: Ticket, of requests: [RoutedRequest], after deadline: Duration, started: ContinuousClock.Instant,
        cancelling handler: Task<Result<ModuleReply, BridgeError>, Never>? = nil
    ) -> UInt64 {
        bridge.timer.schedule(at: started + deadline) { [self] in
            deadlinePassed(owed: ticket, of: requests, after: deadline, started: started, cancelling: handler)
        }
    }

    /// A deadline has passed (on the timer's thread, an NIO event loop): the machine says whether
    /// it answers, and how.
    private func deadlinePassed(
        owed ticket: Ticket, of requests: [RoutedRequest], after deadline: Duration, started: ContinuousClock.Instant,
        cancelling handler: Task<Result<ModuleReply, BridgeError>, Never>?
    ) {
        let action = withMachine { $0.deadlineFired(ticket) }
        guard action != .alreadyAnswered else { return }
        let timeouts = requests.compactMap { routed in
            let error = BridgeError.deadlineExceeded(request: routed.request, module: routed.module, after: deadline)
            return message(bridge.finish(routed.request, .failure(error), context: context, started: started) { $0 })
        }
        switch action {
        case .alreadyAnswered: return
        case .answerTimeoutAndCancel:
            handler?.cancel()
            for timeout in timeouts { send(timeout) }
        case .answerTimeoutAndReplaceWorker:
            if case .startWorker(let generation) = withMachine({ $0.workerAbandoned(timeouts: timeouts) }) {
                keep(replacement: Task { await self.work(generation: generation) })
            }
        }
    }

    /// An answer as one outbound message; `nil` for a request without a GUID.
    func message(_ response: BridgeResponse?) -> ByteBuffer? {
        response.map { ByteBuffer(bytes: $0.jsonBytes) }
    }
}
