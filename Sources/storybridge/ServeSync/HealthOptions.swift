import ArgumentParser
import Foundation
import StoryBridge
import StoryBridgeServer
import StoryBridgeSync

/// The thresholds of serve's `GET /__storybridge/health`: past any of them it answers 503.
struct HealthOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Unhealthy when scheduled syncs have failed for longer than this.", valueName: "duration"))
    var healthSyncFailing: TimeLimit = .after(.seconds(3600))

    @Option(help: ArgumentHelp("Unhealthy when the data folder's disk has fewer free megabytes than this.", valueName: "MB"))
    var healthMinFree: Int = 500

    @Option(
        help: ArgumentHelp("Unhealthy when the oldest record waiting for upload is older than this.", valueName: "duration"))
    var healthUploadAge: TimeLimit = .after(.seconds(86_400))

    @Flag(help: "Unhealthy when a deck is served past its signed manifest's expiry (by default a notice, still 200).")
    var healthStrictTrust = false

    func validate() throws {
        guard healthMinFree >= 0 else { throw ValidationError("--health-min-free must be 0 or more megabytes") }
    }

    /// The sources of the health endpoint: the scheduled sync's status, the catalog's deck states
    /// when serving the library, the data folder.
    func sources(
        host: StoryBridgeHost, library: LibraryStore?, directory: DataDirectory, syncStatus: ScheduledSyncStatus?
    ) -> HealthSources {
        let thresholds = HealthThresholds(
            syncFailingFor: healthSyncFailing.duration ?? .seconds(Int64.max / 4), minimumFreeBytes: Int64(healthMinFree) << 20,
            uploadBacklogAge: healthUploadAge.duration ?? .seconds(Int64.max / 4), strictTrust: healthStrictTrust)
        let sync = syncStatus.map { status in
            { @Sendable () -> SyncHealth in
                let state = status.snapshot
                return SyncHealth(
                    lastRunAt: state.lastRun?.finishedAt, lastRunSucceeded: state.lastRun?.succeeded,
                    failingSince: state.failingSince, nextRunAt: state.nextRunAt, running: state.running)
            }
        }
        let decks = library.map { store in
            let catalog = SyncCatalog(database: store.database)
            return { @Sendable () async -> [DeckHealth] in
                let rows = (try? await catalog.presentations()) ?? []
                let states = Dictionary(rows.map { ($0.id, $0.stateLabel) }, uniquingKeysWith: { first, _ in first })
                let database = store.database
                let trust = await BlockingIO.run { try? database.pool.read { db in try InstalledTrust.served(db) } } ?? [:]
                var decks = host.library.all.map { deck in
                    DeckHealth(
                        id: deck.id, revision: deck.revision, state: states[deck.id] ?? "installed",
                        trust: trust[deck.id].map(DeckTrustHealth.init) ?? .unverified)
                }
                let served = Set(decks.map(\.id))
                decks += rows.filter { !served.contains($0.id) }.map { DeckHealth(id: $0.id, revision: nil, state: $0.stateLabel) }
                return decks
            }
        }
        return HealthSources(thresholds: thresholds, dataFolder: directory.root, sync: sync, decks: decks)
    }
}
