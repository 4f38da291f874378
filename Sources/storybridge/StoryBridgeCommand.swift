import ArgumentParser
import Foundation
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
            ResetCommand.self, RollbackCommand.self, UnpinCommand.self, TestCommand.self, DoctorCommand.self, ContextCommand.self,
            ShotsCommand.self, DiffCommand.self, TrustCommand.self, VerifyCommand.self, AuditCommand.self, KioskCommand.self,
        ]
    )

    /// Parses and runs the subcommand. Errors thrown while it runs are reported against the
    /// subcommand (argument-parser's own `main` would print the root's usage line after them).
    static func main() async {
        PhaseTiming.start()
        let parsingBegan = PhaseTiming.begin()
        let command: any ParsableCommand
        do {
            command = try await asyncParseAsRoot()
        } catch {
            exit(withError: error)
        }
        PhaseTiming.record("arguments parsed", since: parsingBegan)
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
        } catch {
            // argument-parser's own commands (help) end through argument-parser.
            guard isOurs(type(of: command)) else { exit(withError: error) }
            let (text, status) = report(error, from: type(of: command))
            if let text { Terminal.warn(text) }
            Foundation.exit(status)
        }
    }

    /// What to print on standard error, and the exit status, for `error` thrown by `command`.
    static func report(_ error: any Error, from command: any ParsableCommand.Type) -> (text: String?, status: Int32) {
        switch error {
        case let exitCode as ExitCode:
            return (nil, exitCode.rawValue)
        case is CleanExit:
            exit(withError: error)
        case let validation as ValidationError:
            return (
                "Error: \(validation.message)\nUsage: \(usageString(for: command))\n  See '\(commandPath(command)) --help' for more information.",
                ExitCode.validationFailure.rawValue
            )
        case let failure as CommandFailure:
            return ("\(commandPath(command)): \(failure.message)", failure.status)
        default:
            return ("\(commandPath(command)): \(ErrorWording.describe(error))", ExitCode.failure.rawValue)
        }
    }

    /// Whether `command` is this tool's (the root or a subcommand at any depth).
    static func isOurs(_ command: any ParsableCommand.Type, in tree: [any ParsableCommand.Type] = [StoryBridgeCommand.self]) -> Bool {
        tree.contains { candidate in
            ObjectIdentifier(candidate) == ObjectIdentifier(command) || isOurs(command, in: candidate.configuration.subcommands)
        }
    }

    /// `storybridge serve`, `storybridge sessions list`: the words that name `command`.
    static func commandPath(_ command: any ParsableCommand.Type) -> String {
        usageString(for: command).split(separator: " ").prefix { !"[<-".contains($0.first ?? "[") }.joined(separator: " ")
    }
}
