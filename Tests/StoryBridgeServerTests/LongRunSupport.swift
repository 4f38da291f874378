import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting

/// A host on a manual clock with its own data folder (deleted afterwards) and the given lifetime.
func withLongRunHost(
    lifetime: ViewerLifetime, maxDatabasePages: Int? = nil, _ body: (TestHost, ManualHostClock, DataDirectory) async throws -> Void
) async throws {
    let clock = ManualHostClock()
    let directory = DataDirectory(FileManager.default.temporaryDirectory.appendingPathComponent("sb-longrun-\(UUID().uuidString)"))
    defer { try? FileManager.default.removeItem(at: directory.root) }
    let host = try await TestHost.start(
        presentationFolders: [demoFolder], dataDirectory: directory, clock: clock, lifetime: lifetime,
        maxDatabasePages: maxDatabasePages)
    try await host.use { try await body($0, clock, directory) }
}

extension ManualHostClock {
    /// Moves time forward by `minutes`.
    func advance(minutes: Int) { advance(by: .seconds(60 * minutes)) }
}

/// Sends SIGKILL to `process` and waits for it on a thread of its own.
func killHard(_ process: LaunchedProcess) async {
    process.kill()
    await waitForExit(process)
}
