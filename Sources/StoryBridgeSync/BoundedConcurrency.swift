/// Runs `body` over `items` with at most `limit` at a time; results in the items' order. The
/// first error cancels the rest and is thrown.
func boundedMap<Item: Sendable, Result: Sendable>(
    _ items: [Item], limit: Int, _ body: @escaping @Sendable (Item) async throws(SyncError) -> Result
) async throws(SyncError) -> [Result] {
    do {
        return try await withThrowingTaskGroup(of: (Int, Result).self) { group in
            var results = [Result?](repeating: nil, count: items.count)
            var next = 0
            func startNext() {
                guard next < items.count else { return }
                let index = next
                let item = items[index]
                next += 1
                group.addTask { (index, try await body(item)) }
            }
            for _ in 0..<max(1, limit) { startNext() }
            while let (index, result) = try await group.next() {
                results[index] = result
                startNext()
            }
            return results.map { $0! }
        }
    } catch let error as SyncError {
        throw error
    } catch {
        throw .interrupted
    }
}
