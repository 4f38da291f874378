import ArgumentParser
import StoryBridgeSync

extension SyncExitStatus {
    /// Prints `command: message` on standard error and exits with the error's status.
    static func fail(_ command: String, _ error: SyncError) -> ExitCode {
        Terminal.warn("storybridge \(command): \(error)")
        return ExitCode(code(for: error))
    }
}
