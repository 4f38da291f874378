import ArgumentParser
import Foundation
import StoryBridge
import StoryBridgeSync

struct ResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Forget all synced content: the sync catalog, synced presentations and their files, partial downloads.",
        discussion: "The login stays, and so do presentations installed by hand. The next storybridge sync starts afresh.")

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let store = try library.openLibrary()
        let maintenance = SyncMaintenance(library: store)
        do {
            let lock = try SyncLock(file: SyncPaths(library.directory).lockFile)
            defer { withExtendedLifetime(lock) {} }
            let count = try await maintenance.reset()
            Terminal.say("forgot \(count) synced presentation\(count == 1 ? "" : "s")")
        } catch {
            throw SyncExitStatus.fail("reset", error)
        }
    }
}
