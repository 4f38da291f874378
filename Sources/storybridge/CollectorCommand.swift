import ArgumentParser
import Foundation
import Logging
import StoryBridge
import StoryIoTCollector

struct CollectorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collector",
        abstract: "A local StoryIoT-compatible collector for development: receive, check and store uploads.",
        subcommands: [Serve.self, List.self], defaultSubcommand: Serve.self)

    struct StoreOptions: ParsableArguments {
        @Option(help: "The collector's SQLite file (default: collector.sqlite in the data folder).")
        var database: String?
        @OptionGroup var library: LibraryOptions

        func open() throws -> CollectorStore {
            let file =
                database.map { URL(fileURLWithPath: $0) }
                ?? library.directory.root.appendingPathComponent("collector.sqlite")
            do {
                return try CollectorStore(file: file)
            } catch {
                throw CommandFailure(
                    SystemFailure("cannot open the collector database", file.path, error: error).description,
                    status: CommandFailure.storage)
            }
        }
    }

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Receive POST /{hub}/publish/ with the StoryIoT signature; store each record once.",
            discussion: """
                Requests with a wrong key, an expired or unreadable expiration, or a bad signature get 401; \
                records without s-m-eid/s-m-id headers, with non-ASCII headers or a body that is not JSON get \
                400. A record delivered again (same event id and entity id) is stored once and counted.
                """)
        @Option(help: "Address to bind.") var host = "127.0.0.1"
        @Option(help: "Port; 0 picks a free one.") var port = 8090
        @Option(help: "Accept only this hub (default: any).") var hub: String?
        @Option(help: "The key uploads must present.") var key: String
        @Option(help: "The secret signatures are made with.") var secret: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            var logger = Logger(label: "storybridge.collector")
            logger.logLevel = .warning
            let collector = StoryIoTCollector(
                host: host, port: port, hub: hub, key: key, secret: secret, store: try store.open(), logger: logger)
            try await collector.makeApplication { port in
                Terminal.say("storybridge collector listening on http://\(host):\(port)/ (POST /{hub}/publish/); Ctrl-C stops")
            }.runService()
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List what the collector received.")
        @Option(help: "Only records of this event id (e.g. story.content.session).") var eventId: String?
        @Flag(help: "Print JSON with bodies and headers.") var json = false
        @OptionGroup var store: StoreOptions

        func run() throws {
            let messages = try store.open().messages(eventId: eventId)
            if json {
                Terminal.say(
                    JSONValue.array(
                        messages.map {
                            [
                                "sequence": .int($0.sequence), "hub": .string($0.hub), "eventId": .string($0.eventId),
                                "entityId": .string($0.entityId), "deliveries": .int($0.deliveries),
                                "body": (try? JSONValue.parse($0.body)) ?? .string($0.body),
                                "headers": .object($0.headers.mapValues(JSONValue.string)),
                            ]
                        }
                    ).jsonString())
                return
            }
            Terminal.say("\(messages.count) records")
            for message in messages {
                Terminal.say("\(message.sequence)  \(message.eventId)  \(message.entityId)  deliveries \(message.deliveries)")
            }
        }
    }
}
