extension Bridge {
    /// Prepares and commits consecutive recording requests of one page (commands made with
    /// ``BridgeCommand/recording(_:deadline:handler:)``) as one, a lone record as a run of one:
    /// each handler prepares its record, the records are committed together
    /// (``StoryBridgeDatabase/writeEach(_:)``: one hand-over to the writer and one commit), and the
    /// outcome of each request is returned in the order given.
    ///
    /// A request whose handler throws, or whose write fails, gets its own failure; the others are
    /// unaffected. The deadline (the shortest of the run's) is the caller's (``PageConnection``).
    func commitRecords(_ run: [RoutedRequest], context: BridgeContext) async -> [Result<ModuleReply, BridgeError>] {
        // Every request's outcome, set below: a failed preparation at once, the rest after their write.
        var outcomes = [Result<ModuleReply, BridgeError>?](repeating: nil, count: run.count)
        // Records by database, in order (a host has one; a custom module may bring another).
        var pending: [(database: StoryBridgeDatabase, positions: [Int], records: [PreparedRecord])] = []
        for (position, routed) in run.enumerated() {
            do {
                // The page's queue puts only recording commands into a run.
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
        return outcomes.map { $0 ?? .failure(.refused("The request was not run")) }
    }
}
