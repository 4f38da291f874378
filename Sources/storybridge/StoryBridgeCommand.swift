import ArgumentParser
import StoryBridge

@main
struct StoryBridgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storybridge",
        abstract: "Serve StoryCLM HTML presentations to any browser and answer their storyclm.js bridge calls.",
        discussion: """
            storybridge is a WebView-free host for StoryCLM presentation content. It serves a presentation \
            over HTTP, injects a small client into every slide, and answers each storyclm.js command over a \
            WebSocket, as the StoryContent iOS/Android apps would.

            Start with:  storybridge serve Fixtures/presentations/demo
            """,
        version: StoryBridgeVersion.current,
        subcommands: [
            ServeCommand.self, InstallCommand.self, ListCommand.self, RemoveCommand.self, InspectCommand.self, SessionsCommand.self,
            UploadCommand.self, CollectorCommand.self, ContentServerCommand.self, LoginCommand.self, LogoutCommand.self, SyncCommand.self,
            ResetCommand.self, TestCommand.self,
        ]
    )
}
