import ArgumentParser
import Foundation
import Logging
import StoryBridge
import StoryIoTCollector

struct CollectorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collector",
        abstract: "A local StoryIoT-compatible collector for development: receive, check and store uploads.",
        subcommands: [Serve.self, List.self, Checkpoints.self], defaultSubcommand: Serve.self)

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

    struct Checkpoints: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the audit-log checkpoints hosts uploaded (story.content.audit.checkpoint).",
            discussion: """
                Each host signs its audit log's head with its host key and uploads it as a record of \
                event id story.content.audit.checkpoint. This prints those the collector stored, by \
                host and sequence: with --json as the JSON array of signed documents that \
                `storybridge audit verify --checkpoints FILE` reads.
                """)
        @Option(help: "Only the checkpoints of this host id (as printed by serve and doctor; dashes are ignored).") var host: String?
        @Flag(help: "Print the JSON array of checkpoint documents.") var json = false
        @OptionGroup var store: StoreOptions

        func run() throws {
            let wanted = host?.replacingOccurrences(of: "-", with: "").lowercased()
            var documents: [(host: String, sequence: Int, document: JSONValue)] = []
            for message in try store.open().messages(eventId: AuditCheckpoint.eventId) {
                guard let document = try? JSONValue.parse(message.body), let signed = document["signed"],
                    let hostId = signed["hostId"]?.stringValue, let sequence = signed["sequence"]?.intValue
                else { continue }
                if let wanted, hostId != wanted { continue }
                documents.append((hostId, sequence, document))
            }
            documents.sort { ($0.host, $0.sequence) < ($1.host, $1.sequence) }
            if json {
                Terminal.say(JSONValue.array(documents.map(\.document)).jsonString())
                return
            }
            Terminal.say("\(documents.count) checkpoints")
            for item in documents {
                let signed = item.document["signed"]
                Terminal.say(
                    "\(HostKey.grouped(item.host))  \(item.sequence)  position \(signed?["position"]?.intValue ?? 0)  "
                        + "\(signed?["hash"]?.stringValue ?? "")  \(signed?["at"]?.stringValue ?? "")")
            }
        }
    }
}
