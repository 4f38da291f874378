import ArgumentParser
import Foundation
import Logging
import StoryBridge

/// `storybridge context show|set|delete|reset`: reads and changes a presentation's Story context
/// in the data folder, as the app side (the scheme's `appMutable` decides).
struct ContextCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "context", abstract: "Show and change a presentation's Story context (window._story).",
        discussion: """
            The Story context is the state StoryCLM context content shares with the app: a scheme saying \
            who may change each object, the objects app, user and presentation (filled by the host), and \
            the objects the presentation's story-context.json (or the config's storyContext file) declares. \
            Key paths are the object's name and the keys below it, joined with dots: form.rating.value. \
            Changes are made as the app side: an object whose scheme says appMutable false is refused. \
            They are written to the data folder's database; a running serve of that folder notices them \
            within about a second and sends the new state to the presentation's open pages.
            """,
        subcommands: [Show.self, Set.self, Delete.self, Reset.self], defaultSubcommand: Show.self)

    /// What every subcommand needs: the data folder, the config (for the user and the base
    /// definition) and the presentation.
    struct Target: ParsableArguments {
        @Argument(help: "The presentation id.") var presentation: Int
        @OptionGroup var library: LibraryOptions
        @OptionGroup var identity: IdentityOptions

        func open() throws -> StoryContextService {
            let configuration = try identity.resolve()
            let base: StoryContextDefinition
            do {
                base = try configuration.storyContextDefinition()
            } catch {
                throw CommandFailure(error.description, status: CommandFailure.badInput)
            }
            let store = try library.openLibrary()
            let presentations: PresentationLibrary
            do {
                presentations = try store.library()
            } catch {
                throw CommandFailure("cannot read the library in '\(library.directory.root.path)'", error, status: CommandFailure.storage)
            }
            var logger = Logger(label: "storybridge.context")
            logger.logLevel = .critical
            let service = StoryContextService(
                store: StoryContextStore(database: store.database), library: presentations, identity: configuration.identity,
                base: base, viewers: nil, logger: logger)
            do {
                let found = try service.presentation(presentation)
                _ = try service.definition(for: found)
            } catch {
                throw CommandFailure(error.description, status: CommandFailure.badInput)
            }
            return service
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the context as the page gets it, or the value at a key path (JSON; 3.0 is a float, 3 an integer).")
        @OptionGroup var target: Target
        @Argument(help: "A key path (form.rating.value); the whole context when absent.") var keyPath: String?

        func run() async throws {
            let service = try target.open()
            guard let keyPath else {
                Terminal.say(StoryContextJSON.text(try await service.story(presentationId: target.presentation)))
                return
            }
            let address = try ContextCommand.address(keyPath)
            guard let value = try await service.value(at: address, presentationId: target.presentation) else {
                throw CommandFailure("no value at '\(address)' in the Story context of presentation \(target.presentation)")
            }
            Terminal.say(StoryContextJSON.text(value))
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the value at a key path.",
            discussion: """
                VALUE is JSON: 3 (integer), 3.0 (float), true, null, "text", {"a": 1}. With --type the \
                value is read as that type: --type string takes VALUE as text, --type float 3 stores 3.0.
                """)
        @OptionGroup var target: Target
        @Argument(help: "The key path (form.rating.value).") var keyPath: String
        @Argument(help: "The value, as JSON (or as the --type says).") var value: String
        @Option(help: "boolean, integer, float, string, null or object.") var type: String?

        func run() async throws {
            let service = try target.open()
            let address = try ContextCommand.address(keyPath)
            let typed: JSONValue
            do throws(StoryContextError) {
                if let type {
                    guard let propType = StoryPropType(rawValue: type) else { throw .unknownType(type) }
                    typed = try propType.coerce(propType == .string ? .string(value) : (try? JSONValue.parse(value)) ?? .string(value))
                } else {
                    typed = try StoryContextJSON.parse(value)
                }
            } catch {
                throw ValidationError("\(error.description). Quote a string as JSON ('\"text\"') or give --type string.")
            }
            try await ContextCommand.apply(StoryChange(address, .set(typed)), service: service, presentation: target.presentation)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the key at a key path (it is then absent, not null); the object alone empties it.")
        @OptionGroup var target: Target
        @Argument(help: "The key path (form.notes.text).") var keyPath: String

        func run() async throws {
            let service = try target.open()
            let address = try ContextCommand.address(keyPath)
            try await ContextCommand.apply(StoryChange(address, .delete), service: service, presentation: target.presentation)
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget every change: the context starts again from its starting values.")
        @OptionGroup var target: Target

        func run() async throws {
            let service = try target.open()
            let count = try await service.store.reset(
                presentationId: target.presentation, userId: try target.identity.resolve().identity.user.id)
            Terminal.say("Reset \(count) object\(count == 1 ? "" : "s") of the Story context of presentation \(target.presentation).")
        }
    }

    static func address(_ text: String) throws -> StoryAddress {
        do {
            return try StoryAddress(text)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// Applies one change as the app side and prints the new value, or fails with the reason.
    static func apply(_ change: StoryChange, service: StoryContextService, presentation: Int) async throws {
        let outcome: StoryContextOutcome
        do {
            outcome = try await service.apply([change], by: .app, presentationId: presentation)
        } catch {
            throw CommandFailure("cannot change the Story context", error, status: CommandFailure.storage)
        }
        if let refusal = outcome.refusals.first ?? nil {
            throw CommandFailure("refused: \(refusal.description)", status: CommandFailure.badInput)
        }
        let value = outcome.context.value(at: change.address, filled: service.hostObjects(for: try service.presentation(presentation)))
        Terminal.say("\(change.address) = \(value.map(StoryContextJSON.text) ?? "(deleted)")")
    }
}
