extension Bridge {
    /// Runs consecutive recording requests of one page (commands made with
    /// ``BridgeCommand/recording(_:deadline:handler:)``) as one: each handler prepares its record,
    /// the records are committed together (``StoryBridgeDatabase/writeEach(_:)``: one hand-over to
    /// the writer and one commit), and every request is answered once, in the order given.
    ///
    /// A request whose handler throws, or whose write fails, gets its own `Failure`; the others
    /// are unaffected. The run has one deadline, the shortest of its requests': when the commit
    /// has not come by then, `atDeadline` gets a 504 for each request (on the timer's thread, an NIO
    /// event loop; the caller moves on without the stuck run) and the run's late answers are dropped. Otherwise
    /// `onTime` gets the answers on the calling task. `nil` stands for a request without a GUID.
    func runRecords(
        _ run: [RoutedRequest], context: BridgeContext, atDeadline: @escaping @Sendable ([BridgeResponse?]) -> Void,
        onTime: ([BridgeResponse?]) async -> Void
    ) async {
        let started = clock.instant
        let claim = AnswerClaim()
        let deadline = run.compactMap(\.route.deadline).min()
        let timeout = deadline.map { deadline in
            timer.schedule(at: started + deadline) { [self] in
                guard claim.take() else { return }
                atDeadline(
                    run.map { routed in
                        let error = BridgeError.deadlineExceeded(request: routed.request, module: routed.module, after: deadline)
                        return finish(routed.request, .failure(error), context: context, started: started) { $0 }
                    })
            }
        }
        // Every request's outcome, set below: a failed preparation at once, the rest after their write.
        var outcomes = [Result<ModuleReply, BridgeError>?](repeating: nil, count: run.count)
        // Records by database, in order (a host has one; a custom module may bring another).
        var pending: [(database: StoryBridgeDatabase, positions: [Int], records: [PreparedRecord])] = []
        for (position, routed) in run.enumerated() {
            do {
                // The queue puts only recording commands into a run.
                guard let prepare = routed.route.command.recordHandler else {
                    throw BridgeError.refused("\(routed.request.command) is not a recording command")
                }
                let record = try await prepare(routed.request, context)
                if let index = pending.firstIndex(where: { $0.database === record.database }) {
                    pending[index].positions.append(position)
                    pending[index].records.append(record)
                } else {
                    pending.append((record.database, [position], [record]))
                }
            } catch {
                outcomes[position] = .failure(Self.failure(from: error, of: run[position]))
            }
        }
        for group in pending {
            let written = await group.database.writeEach(group.records.map(\.updates))
            for (index, position) in group.positions.enumerated() {
                switch written[index] {
                case .success: outcomes[position] = .success(ModuleReply(data: group.records[index].data))
                case .failure(let error): outcomes[position] = .failure(Self.failure(from: error, of: run[position]))
                }
            }
        }
        if let timeout { timer.cancel(timeout) }
        guard claim.take() else { return }
        var answers: [BridgeResponse?] = []
        answers.reserveCapacity(run.count)
        for (position, routed) in run.enumerated() {
            let outcome = outcomes[position] ?? .failure(.refused("The request was not run"))
            answers.append(finish(routed.request, outcome, context: context, started: started) { $0 })
        }
        await onTime(answers)
    }
}
