import ArgumentParser
import Foundation
import Logging
import StoryBridge
import StoryBridgeServer

/// Opens the analytics of the data folder.
func openAnalytics(_ library: LibraryOptions, limits: OutboxLimits = OutboxLimits()) throws -> AnalyticsStore {
    AnalyticsStore(database: try library.openDatabase(), limits: limits)
}

struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions", abstract: "List, show and export recorded sessions.",
        subcommands: [List.self, Show.self, Export.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List sessions, newest first.")
        @Option(help: "Only sessions of this presentation.") var presentation: Int?
        @Option(help: "At most this many.") var limit = 50
        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let sessions = try await openAnalytics(library).sessions(presentationId: presentation, limit: limit)
            guard !sessions.isEmpty else {
                Terminal.say("No sessions recorded in \(library.directory.root.path).")
                return
            }
            Terminal.say("SESSION                               PRES  STATE  DONE  SLIDES  SECONDS  CREATED")
            for session in sessions {
                Terminal.say(
                    String(
                        format: "%@  %4d  %5d  %4@  %6d  %7d  %@", session.id, session.presentationId, session.state.rawValue,
                        session.complete ? "yes" : "no", session.slidesCount, session.duration,
                        AnalyticsFormat.timestamp(session.stamp.created)))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one session with its slide views, media views and custom events (JSON).")
        @Argument(help: "The session id.") var id: String
        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let store = try openAnalytics(library)
            guard let session = try await store.session(id: id) else {
                Terminal.warn("storybridge sessions show: no session '\(id)'")
                throw ExitCode(1)
            }
            Terminal.say(try await SessionsCommand.describe(session, store: store).jsonString())
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export sessions with their records as JSON, or their slide views as CSV.")
        enum Format: String, ExpressibleByArgument, CaseIterable { case json, csv }
        @Option(help: "json (sessions with slides, media views and custom events) or csv (one row per slide view).")
        var format: Format = .json
        @Option(help: "Only sessions of this presentation.") var presentation: Int?
        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let store = try openAnalytics(library)
            let sessions = try await store.sessions(presentationId: presentation, limit: Int.max)
            switch format {
            case .json:
                var described: [JSONValue] = []
                for session in sessions { described.append(try await SessionsCommand.describe(session, store: store)) }
                Terminal.say(JSONValue.array(described).jsonString())
            case .csv:
                Terminal.say("sessionId,presentationId,state,complete,slideViewId,slideName,duration,navigation,cause,created")
                for session in sessions {
                    for view in try await store.slideViews(sessionId: session.id) {
                        let fields = [
                            session.id, String(session.presentationId), String(session.state.rawValue), String(session.complete),
                            view.id, view.slideName, String(view.duration), view.navigation, view.cause,
                            AnalyticsFormat.timestamp(view.stamp.created),
                        ]
                        Terminal.say(fields.map(Self.csvField).joined(separator: ","))
                    }
                }
            }
        }

        static func csvField(_ value: String) -> String {
            guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
            return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
    }

    static func describe(_ session: SessionRecord, store: AnalyticsStore) async throws -> JSONValue {
        guard case .object(var members) = session.json else { return session.json }
        members["slides"] = .array(try await store.slideViews(sessionId: session.id).map(\.json))
        members["mediaViews"] = .array(try await store.mediaViews(sessionId: session.id).map(\.json))
        members["customEvents"] = .array(try await store.customEvents(sessionId: session.id).map(\.json))
        // A Veeva or OCE deck's records (saved CRM records, OCE actions and tracked pages) and OCE state.
        let kept = try await store.dialectRecords(sessionId: session.id)
        members["records"] = .array(kept.records)
        members["oceStates"] = .array(kept.oceStates)
        return .object(members)
    }
}

struct UploadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Publish saved sessions to the collector, or show the upload queue.",
        discussion: """
            Only sessions in state 1 (closed and saved) and their records are uploaded. Without --once it \
            keeps running (as `serve` does in the background) until Ctrl-C.
            """)

    @Flag(help: "Run one pass over what is due, then exit.") var once = false
    @Flag(help: "Show the queue: queued, sent, set aside, dropped, last error, next attempt.") var status = false
    @Flag(help: "List the records that were set aside (refused by the collector).") var listSetAside = false
    @Flag(help: "Put every set-aside record back in the queue.") var requeue = false
    @Flag(help: "Print JSON (with --status).") var json = false
    @OptionGroup var identity: IdentityOptions
    @OptionGroup var upload: UploadOptions
    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let configuration = try identity.resolve()
        let store = try openAnalytics(library)
        if status {
            let summary = try await store.uploadStatus()
            if json {
                Terminal.say(summary.json.jsonString())
            } else {
                Terminal.say("queued:     \(summary.queued) records (\(summary.queuedBytes) bytes)")
                Terminal.say("sent:       \(summary.sent)")
                Terminal.say("set aside:  \(summary.setAside)")
                Terminal.say("dropped:    \(summary.droppedRecords) records (\(summary.droppedBytes) bytes) over the queue caps")
                Terminal.say("last error: \(summary.lastError ?? "none")")
                Terminal.say(
                    "next try:   \(summary.nextAttemptAt.map(AnalyticsFormat.timestamp) ?? "nothing queued")")
            }
            return
        }
        if listSetAside {
            for record in try await store.outbox(status: .setAside) {
                Terminal.say("\(record.recordId)  attempts \(record.attempts)  \(record.lastError ?? "")")
            }
            return
        }
        if requeue {
            Terminal.say("re-queued \(try await store.requeue()) records")
            return
        }
        guard let settings = try upload.resolve(configuration.upload) else {
            throw ValidationError(
                "no collector configured: give --upload-endpoint, --upload-key and --upload-secret, or an 'upload' section in --config")
        }
        var logger = Logger(label: "storybridge.upload")
        // One pass reports its outcome itself; a long run logs each retry as it happens.
        logger.logLevel = once ? .error : .warning
        let uploader = Uploader(
            store: AnalyticsStore(database: store.database, limits: settings.outboxLimits), settings: settings,
            identity: configuration.identity, logger: logger)
        if once {
            var total = Uploader.PassResult()
            repeat {
                let pass = await uploader.runOnce()
                total.sent += pass.sent
                total.retried += pass.retried
                total.setAside += pass.setAside
                total.moreDue = pass.moreDue && !pass.collectorFailing
            } while total.moreDue
            await uploader.shutdown()
            Terminal.say("sent \(total.sent), will retry \(total.retried), set aside \(total.setAside)")
            if total.retried > 0 {
                let reason = try await store.uploadStatus().lastError ?? "the collector did not take every record"
                throw CommandFailure(reason, status: 75)
            }
            return
        }
        Terminal.say("uploading to \(settings.endpoint) every \(settings.intervalSeconds) s; Ctrl-C stops")
        try await HostServiceGroup.make([UploaderService(uploader)], logger: logger).run()
    }
}
