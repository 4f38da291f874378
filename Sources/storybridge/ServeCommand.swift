import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import StoryBridge
import StoryBridgeFleet
import StoryBridgeServer
import StoryBridgeSync

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a presentation and answer its bridge calls.",
        discussion: """
            Serves a presentation at http://HOST:PORT/. TARGET is a presentation folder (holding \
            index.html), a .zip package (unpacked to a temporary folder for the run), or the id of an \
            installed presentation; without TARGET the whole installed library is served. Every root \
            *.html slide gets the storybridge client injected, so both content that bundles the original \
            storyclm.js and content written against storybridge's js/storyclm.js work unmodified. Open \
            the printed URL in any browser. Ctrl-C stops the server.
            """
    )

    @Argument(help: "A presentation folder, a .zip package, or an installed id; omit to serve the library.")
    var target: String?

    @Option(help: "Address to bind.")
    var host: String?

    @Option(help: "Port to listen on; 0 picks a free port.")
    var port: Int?

    @Option(help: "Presentation id (presId) given to a folder or .zip.")
    var id: Int = 1

    @Option(help: "Presentation name (default: the folder name).")
    var name: String?

    @Option(help: "How to read a folder or .zip: storyclm, veeva or oce (default: detected).")
    var dialect: DialectName?

    @Option(help: "Seconds a module may take before the host answers a 504 Failure (default 10).")
    var deadline: Double?

    @Option(
        help: """
            How a mode-0 close (also the viewer's close button) answers "save the session?": ask (the viewer, in the \
            browser, for presentations the content service marks needConfirmation; others close and save), save, \
            discard, cancel (for every presentation, without asking).
            """)
    var closeAnswer: ViewerPolicy.CloseDecision = .ask

    @Option(help: "Whether an unfinished session of the same presentation is continued: ask (the viewer), restore, new.")
    var restoreAnswer: ViewerPolicy.RestoreDecision = .ask

    @Option(help: "Log level: trace, debug (one line per bridge request), info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    @Option(help: "Log line format on standard error: text or json (one object per line).")
    var logFormat: LogFormat = .text

    @Option(
        help: """
            What the client does with the page's own console.log/info/warn/error/debug lines: forward (send each to the \
            host, which logs it at the page's level and shows it in the inspector; 20 lines a second per page, bursts of \
            50, the rest dropped and counted) or off.
            """)
    var pageConsole: PageConsoleForwarding = .forward

    @Flag(
        name: .customLong("watch"), inversion: .prefixedNo,
        help: "Live reload when serving a folder: an edited file reloads the viewers showing the presentation.")
    var watch = true

    @OptionGroup(title: "Identity and configuration")
    var identity: IdentityOptions

    @OptionGroup(title: "Library")
    var library: LibraryOptions

    @Option(help: "Open as if launched by this deep link: storyclm://content?contentId=N&slide=x.html&key=value...")
    var deepLink: String?

    @Flag(help: "Allow --host to be an address other than loopback (exposes the bridge to the network).")
    var allowRemote = false

    @Option(
        name: .customLong("allowed-host"),
        help: ArgumentHelp(
            "A name this host answers to besides 127.0.0.1, localhost, [::1] and the bound address (repeatable; '*.example.lan' for sub-domains).",
            discussion:
                "Requests whose Host header names anything else are refused with 421 (a defence against DNS rebinding). Needed with --allow-remote for the names a LAN uses."
        ))
    var allowedHosts: [String] = []

    @Flag(help: "Also serve a plain WebSocket echo at /__storybridge/echo (the round-trip benchmark's baseline).")
    var benchEcho = false

    @Flag(
        help: ArgumentHelp(
            "Run all of each page's bridge connection on its socket's event loop, module handlers included.",
            discussion:
                "By default only a connection's reading task runs there, and only while the page waits for its answers: a page calling one command at a time gets its memory answers without a thread switch (the in-page call's mean at about 1.0x of a plain echo's), while module handlers, the writer and connections that pipeline run on Swift's global executor. With this flag the page's queue, concurrent commands and the writer run on the event loop too, and many busy connections get fewer answers a second (reads about 0.85x of the echo instead of about 0.95x). Module handlers must not block either way. See docs/BENCHMARKS.md and docs/ARCHITECTURE.md (\"Where it runs\")."
        ))
    var connectionsOnEventLoop = false

    @Option(help: "Most open bridge connections; more are refused with 503.")
    var maxConnections = 1024

    @Option(
        name: .customLong("allow-http-host"),
        help: "Let content's httpget/httppost/... reach this host (repeatable; '*.example.com' for sub-domains, '*' for any).")
    var allowHTTPHosts: [String] = []

    func httpSettings(_ configured: HTTPModuleSettings) -> HTTPModuleSettings {
        var settings = configured
        settings.allowedHosts += allowHTTPHosts
        return settings
    }

    @OptionGroup(title: "Analytics upload")
    var upload: UploadOptions

    @Option(
        help: ArgumentHelp(
            "Record what the browsers do as a storybridge test script in this file (JSON, which is YAML too).",
            discussion:
                "Each tab becomes a test: its page loads and the bridge commands its pages sent, with the answers as expectations (ids and times matched by type). Replay with: storybridge test FILE. The inspector's Record/Stop button records on demand: into FILE when given (a new recording replaces it), else into recording-YYYYMMDD-HHMMSS.json in the current folder."
        ))
    var record: String?

    @OptionGroup(title: "Long runs")
    var lifetime: LifetimeOptions

    @OptionGroup(title: "Audit log (checkpoints signed with the host key)")
    var audit: AuditOptions

    @OptionGroup(title: "Sync while serving")
    var sync: ServeSyncOptions

    @OptionGroup(title: "Health (GET /__storybridge/health)")
    var health: HealthOptions

    @OptionGroup(title: "Fleet (report to a content-server --fleet hub)")
    var fleet: FleetOptions

    @Option(
        help: ArgumentHelp(
            "A JSON file saying which deck plays when (weekly windows, dated exceptions, a default; docs/design/FLEET.md §10); the config's schedule section otherwise. At each change, viewers are switched to the scheduled deck.",
            valueName: "file"))
    var schedule: String?

    /// For tests with a real process: the host's clock starts at this moment and runs on from it
    /// (``OffsetHostClock``), so a schedule's window edge can come seconds after start. Hidden.
    @Option(
        name: .customLong("test-start-time"),
        help: ArgumentHelp(
            "Testing only: the host's clock starts at this ISO 8601 time with its offset (2026-03-29T01:59:58+01:00) and runs on from it.",
            visibility: .private))
    var testStartTime: String?

    /// The host's clock: the system's, or one starting at `--test-start-time`.
    func hostClock() throws -> any HostClock {
        guard let testStartTime else { return SystemHostClock() }
        let reader = ISO8601DateFormatter()
        reader.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let fallback = ISO8601DateFormatter()
        fallback.formatOptions = [.withInternetDateTime]
        guard let start = reader.date(from: testStartTime) ?? fallback.date(from: testStartTime) else {
            throw ValidationError(
                "--test-start-time \(testStartTime) is not an ISO 8601 time with an offset, such as 2026-03-29T01:59:58+01:00")
        }
        return OffsetHostClock(startingAt: start)
    }

    /// The schedule of `--schedule FILE`, else of the config's `schedule` section; nil without one.
    private func readSchedule(_ configured: JSONValue?) throws -> DeckSchedule? {
        if let schedule {
            guard let data = FileManager.default.contents(atPath: schedule) else {
                throw ValidationError("--schedule \(schedule) cannot be read")
            }
            let json: JSONValue
            do {
                json = try JSONValue.parse(String(decoding: data, as: UTF8.self))
            } catch {
                throw ValidationError("--schedule \(schedule) is not JSON: \(error)")
            }
            do {
                return try DeckSchedule.parse(json, place: (schedule as NSString).lastPathComponent)
            } catch {
                throw ValidationError("--schedule \(schedule): \(error.description)")
            }
        }
        guard let configured else { return nil }
        do {
            return try DeckSchedule.parse(configured)
        } catch {
            throw ValidationError("--config: \(error.description)")
        }
    }

    func run() async throws {
        // A host that runs for weeks: freed memory goes back to two shared malloc arenas instead of
        // staying in one per thread (see AllocatorArenas).
        AllocatorArenas.limit()
        let configuration = try identity.resolve()
        let checkpoints = try audit.resolve(configuration.audit)
        let fleetSettings = try fleet.resolve(config: configuration.fleet)
        let deckSchedule = try readSchedule(configuration.schedule)
        let fleetTap = fleetSettings == nil ? nil : FleetLogTap()
        let storyContext: StoryContextDefinition
        do {
            storyContext = try configuration.storyContextDefinition()
        } catch {
            throw ValidationError(error.description)
        }
        let source: PresentationSource
        do {
            source = try PresentationSource.resolve(target, library: library, id: id, name: name, dialect: dialect)
        } catch let error as ValidationError {
            throw error
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw ValidationError(ErrorWording.describe(error))
        }
        defer { source.cleanUp() }
        let logger = ServeLogging.bootstrap(level: logLevel, format: logFormat, tap: fleetTap)
        let deadlineSeconds = deadline ?? configuration.bridge.deadlineSeconds ?? 10
        guard deadlineSeconds > 0 else { throw ValidationError("--deadline must be more than 0 seconds") }
        let (database, movedAside) = try library.openDatabaseChecked()
        let hostKey = try library.hostKey()
        // Before anything writes: the audit log's start-up checks, then checkpoints and head file.
        _ = try await checkpoints.start(database, key: hostKey, movedAside: movedAside, logger: logger)
        let viewerLifetime = try lifetime.resolve(configuration.server)
        let uploadSettings = try upload.resolve(configuration.upload)
        let syncStatus = ScheduledSyncStatus()
        let syncService = try sync.resolve(
            configuration.sync, trust: configuration.trust, servingLibrary: source.library != nil, directory: library.directory,
            status: syncStatus, logger: logger)
        var link: DeepLink?
        if let deepLink {
            do {
                link = try DeepLink(deepLink)
            } catch {
                throw ValidationError("--deep-link: \(error.description)")
            }
            guard let target = source.presentations.first(where: { $0.id == link!.presentationId }) else {
                throw ValidationError("--deep-link: presentation \(link!.presentationId) is not being served")
            }
            guard target.hasSlide(link!.slide) else {
                throw ValidationError("--deep-link: '\(link!.slide)' is not a slide of presentation \(target.id)")
            }
        }
        let host = StoryBridgeHost(
            library: PresentationLibrary(source.presentations), database: database, identity: configuration.identity,
            policy: ViewerPolicy(closeDecision: closeAnswer, restoreDecision: restoreAnswer),
            outboxLimits: uploadSettings?.outboxLimits ?? OutboxLimits(), http: httpSettings(configuration.http),
            tables: configuration.tables, deepLink: link, commands: configuration.commands,
            defaultDeadline: .milliseconds(Int(deadlineSeconds * 1000)), clock: try hostClock(), lifetime: viewerLifetime,
            storyContext: storyContext, pageConsole: PageConsoleSettings(forwarding: pageConsole), logger: logger)
        // Sessions a killed run left open are finished before the first page connects.
        await host.sweepIdle()
        let bindHost = self.host ?? configuration.server.host ?? "127.0.0.1"
        let bindPort = port ?? configuration.server.port ?? 8080
        guard (0...65535).contains(bindPort) else { throw ValidationError("--port must be between 0 and 65535") }
        if !ServerConfiguration.isLoopback(bindHost) {
            guard allowRemote else {
                throw ValidationError(
                    "--host \(bindHost) is not a loopback address: any machine that can reach it could drive the bridge. Add --allow-remote if you mean it."
                )
            }
            Terminal.warn(
                "warning: serving on \(bindHost): the bridge is reachable from the network (pages still need the launch token).")
        }
        var serverConfiguration = ServerConfiguration(
            host: bindHost, port: bindPort, defaultPresentationId: source.defaultId, maxConnections: maxConnections,
            echo: benchEcho)
        let recording = ServeRecording.control(file: record, target: target, source: source)
        serverConfiguration.recording = recording
        serverConfiguration.connectionsOnEventLoop = connectionsOnEventLoop
        serverConfiguration.revisions = ServeRevisions.control(store: source.library, directory: library.directory)
        serverConfiguration.uploadCollector = uploadSettings?.endpoint
        serverConfiguration.allowedHosts = (configuration.server.allowedHosts ?? []) + allowedHosts
        let scheduleSwitcher = deckSchedule.map { ScheduleSwitcher(schedule: $0, host: host, logger: logger) }
        if let scheduleSwitcher { serverConfiguration.scheduled = { scheduleSwitcher.nowPlaying } }
        serverConfiguration.health = health.sources(
            host: host, library: source.library, directory: library.directory, syncStatus: syncService == nil ? nil : syncStatus)
        let metrics = HostMetrics()
        // `storybridge kiosk` finds this serve by the run file written once it listens.
        let kioskControl = KioskControl(startURL: "")
        serverConfiguration.kioskControl = kioskControl
        let server = StoryBridgeServer(host: host, configuration: serverConfiguration, metrics: metrics)
        var services: [any Service] = [IdleSweepService(host: host)]
        if let interval = checkpoints.interval {
            services.append(AuditCheckpointService(database: database, interval: interval, clock: host.clock, logger: logger))
        }
        if let uploadSettings {
            services.append(
                UploaderService(
                    Uploader(
                        store: host.analytics, settings: uploadSettings, identity: configuration.identity, logger: logger,
                        metrics: metrics.factory, clock: host.clock)))
        }
        let liveFolder = watch ? source.liveFolder : nil
        if let liveFolder {
            services.append(
                PresentationWatcherService(
                    PresentationWatcher(folder: liveFolder.folder, catalog: liveFolder.catalog, clock: host.clock), host: host))
        }
        // Serving the library: installs and syncs by other processes show up without a restart.
        if let store = source.library {
            services.append(LibraryCatalogWatcherService(LibraryCatalogWatcher(store: store), host: host))
        }
        if let syncService { services.append(syncService) }
        // Serving the library: its decks' files are checked against their manifests on a schedule.
        if let store = source.library, let every = configuration.trust.verifyInterval {
            services.append(
                TrustVerificationService(
                    schedule: SyncSchedule(interval: every), store: store, rootFile: configuration.trust.rootFile, logger: logger))
        }
        // `storybridge context set` by another process reaches open pages within a second.
        services.append(StoryContextWatcherService(StoryContextWatcher(), host: host))
        if let scheduleSwitcher { services.append(ScheduleService(switcher: scheduleSwitcher)) }
        // The fleet agent stops first: its `bye` reaches the hub at once, before the server has
        // finished its responses (else the hub may judge the kiosk silent, not stopped).
        var stoppingFirst: [any Service] = []
        if let fleetSettings {
            stoppingFirst.append(
                ServeFleet.agent(
                    fleetSettings, hostKey: hostKey, host: host, metrics: metrics, syncStatus: syncService == nil ? nil : syncStatus,
                    health: serverConfiguration.health, library: source.library, schedule: scheduleSwitcher, directory: library.directory,
                    minimumFreeBytes: Int64(health.healthMinFree) << 20, tap: fleetTap, kiosk: kioskControl, logger: logger))
        }
        if let record { try await ServeRecording.start(recording, file: record, host: host) }
        do {
            try await serve(
                server, alongside: services, stoppingFirst: stoppingFirst, source: source, bindHost: bindHost,
                uploadSettings: uploadSettings,
                watching: liveFolder != nil, hostId: hostKey.groupedHostId, kiosk: kioskControl)
        } catch {
            KioskRunFile.remove(in: library.directory)
            await ServeRecording.finish(recording)
            throw error
        }
        KioskRunFile.remove(in: library.directory)
        await ServeRecording.finish(recording)
        // Stopped cleanly: a last checkpoint, and the head file marked clean.
        do {
            try await AuditStart.stop(database, now: host.clock.now)
        } catch {
            logger.warning("audit: the last checkpoint could not be written", metadata: ["error": "\(error)"])
        }
    }

    /// Runs the server and its services until Ctrl-C or SIGTERM, printing the addresses once it listens.
    private func serve(
        _ server: StoryBridgeServer, alongside services: [any Service], stoppingFirst: [any Service], source: PresentationSource,
        bindHost: String,
        uploadSettings: UploadSettings?, watching: Bool, hostId: String, kiosk: KioskControl
    ) async throws {
        let token = server.configuration.token
        try await server.runUntilSignalled(alongside: services, stoppingFirst: stoppingFirst) { boundPort in
            let displayHost = bindHost.contains(":") ? "[\(bindHost)]" : bindHost
            // The kiosk on this machine reaches serve on loopback unless serve is bound to one address.
            let local = ["0.0.0.0", "::", "127.0.0.1", "localhost"].contains(bindHost) ? "127.0.0.1" : displayHost
            let base = "http://\(local):\(boundPort)"
            kiosk.startURLChanged(to: base + "/")
            do {
                try KioskRunFile(pid: getpid(), url: base, controlToken: kiosk.token).write(in: library.directory)
            } catch {
                Terminal.warn("warning: \(error); storybridge kiosk will not find this serve")
            }
            let what =
                source.presentations.count == 1
                ? "\"\(source.presentations[0].name)\" (presentation \(source.presentations[0].id), \(source.presentations[0].slides.count) slides) from \(source.description)"
                : source.description
            // A folder or .zip is read from disk as it is: nothing was checked against a manifest.
            let trust = source.library == nil ? " (from disk: not signed, not verified)" : ""
            Terminal.say(
                """
                storybridge \(StoryBridgeVersion.current): serving \(what)\(trust)
                  Open http://\(displayHost):\(boundPort)/ in a browser.
                  Inspector: http://\(displayHost):\(boundPort)/__storybridge/inspector?token=\(token)
                  Metrics (Prometheus): http://\(displayHost):\(boundPort)/__storybridge/metrics
                  Health: http://\(displayHost):\(boundPort)/__storybridge/health
                  Host id: \(hostId)
                  \(watching ? "Live reload: on (edits to the folder reload its viewers; --no-watch turns it off)." : "Live reload: off.")
                  \(uploadSettings.map { "Uploading saved sessions to \($0.endpoint) every \($0.intervalSeconds) s." } ?? "Analytics are kept in \(library.directory.database.path) (no upload configured).")
                  Press Ctrl-C to stop.
                """)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
extension LogFormat: ExpressibleByArgument {}

extension ViewerPolicy.CloseDecision: ExpressibleByArgument {}
extension ViewerPolicy.RestoreDecision: ExpressibleByArgument {}
extension PageConsoleForwarding: ExpressibleByArgument {}
