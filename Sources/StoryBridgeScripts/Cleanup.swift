/// Runs `body`, then `cleanup`, also when `body` throws (then the error goes on after `cleanup`).
package func withCleanup<T>(_ body: () async throws -> T, cleanup: () async -> Void) async throws -> T {
    do {
        let result = try await body()
        await cleanup()
        return result
    } catch {
        await cleanup()
        throw error
    }
}
