import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import StoryBridge
import StoryBridgeServer
import StoryBridgeSync

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Bring the library up to date from the content service (after storybridge login).",
        discussion: """
            Without options: fetch the client list, then every listed presentation (four at a time: a \
            package can be republished under an unchanged presentation revision), and record them in \
            the catalog. A presentation that fails (403, a malformed reply) is marked failed with the \
            reason and the run goes on. A presentation gone from the service is withdrawn: off the \
            launcher of serve, its files kept; it is removed when it is still gone after \
            --removal-grace, or at once with --prune. A run that would withdraw every synced \
            presentation, or more than half of them, withdraws none without --prune (a transient \
            empty list must not wipe a kiosk). Presentations marked skip are left alone. With \
            --content, also download the packages that are missing or out of date (all, or the ids \
            given with the presentations they open, recursively), two at a time by \
            default: each streams to a partial file in DATA-DIR/downloads that an interrupted run \
            (Ctrl-C, a dropped connection, a crash, a reboot) resumes; its size must equal the declared \
            one, or else the archive must validate completely (central directory and every entry's \
            CRC), which is accepted with a warning kept in the status; it passes the same archive \
            checks as storybridge install; it is unpacked beside the \
            installed revision, which keeps being served until the new one is complete and valid. \
            A running `storybridge serve` of the library picks it up and reloads its viewers.

            With --content --diff-report DIR, once the packages are installed, every deck the run updated \
            (a full or delta install; first installs have nothing to compare) is screenshot in headless \
            Chromium in the revision the update replaced, which --keep-revisions kept on disk, and in the new \
            one, and compared as storybridge diff compares them (1024x768, no tolerance): DIR/ID-FROM-to-TO.html \
            per deck and one line with the slides changed, added and removed and the report's path. A deck \
            updated with --keep-revisions 0 gets a line saying its report cannot be made. The reports never \
            change the exit status: a Chromium that cannot be started is said once and the run's status \
            stands. (serve --sync-every makes no reports.)

            States (--status): not downloaded, not downloaded (no package), update available, \
            downloading, ready, failed (reason), withdrawn. --status also says what the last run left \
            undone, and the bytes delta updates saved (per presentation and in all: each delta \
            update's package size less the bytes it fetched, from the revision history).

            \(SyncExitStatus.helpText)
            """)

    @Flag(help: "Also download the packages that are missing or out of date.")
    var content = false

    @Argument(help: "With --content: only these presentation ids (and the presentations they open).")
    var ids: [Int] = []

    @Flag(help: "Show each synced presentation's state, revisions, size and last error (no network).")
    var status = false

    @Flag(
        help: ArgumentHelp(
            "Print every install, update, rollback and removal (all presentations, or the id given) with time, revision, bytes and how (no network).",
            discussion:
                "how: full (whole package downloaded), delta (changed entries only), rollback, removal, local (storybridge install)."))
    var history = false

    @Option(help: "Earlier revisions of each presentation kept on disk for storybridge rollback.")
    var keepRevisions = 1

    @Option(
        help: ArgumentHelp(
            "With --content: write a visual diff report for every deck this run updates into this folder.",
            discussion:
                "ID-FROM-to-TO.html per updated deck, made as storybridge diff ID --from FROM --to TO makes it, between the revision the update replaced (kept on disk) and the new one; one summary line per deck. It needs --keep-revisions 1 or more and Chromium, and never changes the sync's exit status.",
            valueName: "folder"))
    var diffReport: String?

    @Flag(help: "With --status: print JSON.")
    var json = false

    @Option(help: "Packages downloaded at the same time.")
    var concurrency = 2

    @Option(help: TransferRate.help)
    var limitRate: TransferRate?

    @Flag(help: "Withdraw and remove at once every presentation gone from the service (no grace period, no guard).")
    var prune = false

    @Option(
        help: ArgumentHelp(
            "How long a presentation gone from the service stays on disk (withdrawn) before it is removed: 90s, 30m, 24h, 7d.",
            valueName: "duration"))
    var removalGrace = RemovalGrace(seconds: 24 * 3600)

    @Flag(help: "Refuse unsigned packages (a service that does not sign, or no root pinned with `storybridge trust add`).")
    var requireSigned = false

    @Option(name: .customLong("config"), help: "A JSON config file: its trust.rootFile and trust.requireSigned apply.")
    var configFile: String?

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        if diffReport != nil && !content {
            throw ValidationError("--diff-report goes with --content (it compares the decks a content sync updates)")
        }
        if history {
            if content || status || prune { throw ValidationError("--history only shows; run it without --content, --status or --prune") }
            if ids.count > 1 { throw ValidationError("--history takes one presentation id at most") }
            return
        }
        guard keepRevisions >= 0 else { throw ValidationError("--keep-revisions must be 0 or more") }
        if !ids.isEmpty && !content {
            throw ValidationError(
                "presentation ids go with --content: storybridge sync --content \(ids.map(String.init).joined(separator: " "))")
        }
        if json && !status { throw ValidationError("--json goes with --status") }
        if limitRate != nil && !content { throw ValidationError("--limit-rate goes with --content (it limits package downloads)") }
        if status && (content || prune) { throw ValidationError("--status only shows; run it without --content or --prune") }
        guard (1...16).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 16") }
    }

    func run() async throws {
        if status {
            try await showStatus()
            return
        }
        if history {
            try showHistory(id: ids.first)
            return
        }
        let lock: SyncLock
        do {
            lock = try PhaseTiming.measure("sync lock") {
                try library.directory.prepare()
                return try SyncLock(file: SyncPaths(library.directory).lockFile)
            }
        } catch let error as SyncError {
            throw SyncExitStatus.fail("sync", error)
        }
        defer { withExtendedLifetime(lock) {} }
        let service: SyncService
        do {
            service = try PhaseTiming.measure("library, session and HTTP client opened") {
                () throws(SyncError) in try SyncService(directory: library.directory, logger: Self.quietLogger())
            }
        } catch {
            throw SyncExitStatus.fail("sync", error)
        }
        let diffReports = try diffReport.map { folder throws(CommandFailure) in
            try SyncDiffReports(folder: URL(fileURLWithPath: folder), store: service.library, keepRevisions: keepRevisions)
        }
        let display = SyncProgressDisplay()
        var plan = SyncRun()
        plan.removals = RemovalPolicy(grace: removalGrace.seconds, prune: prune)
        plan.content = content
        plan.ids = ids.isEmpty ? nil : ids
        plan.concurrency = concurrency
        plan.keepRevisions = keepRevisions
        plan.rateLimit = limitRate
        let trustSettings = try TrustCommand.settings(configFile)
        plan.trust = TrustPolicy(rootFile: trustSettings.rootFile, requireSigned: requireSigned || trustSettings.requireSigned == true)
        let sync = SyncRunService { [plan] in await plan.run(service, events: { display.handle($0) }) }
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: sync, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: HostServiceGroup.shutdownSignals, logger: Self.quietLogger()))
        do {
            try await group.run()
        } catch {
            Terminal.warn("storybridge sync: \(error)")
        }
        display.finish()
        await PhaseTiming.measure("HTTP client shut down") { await service.shutdown() }
        var outcome = sync.outcome ?? .failed(.interrupted)
        let paths = SyncPaths(library.directory)
        if sync.wasInterrupted {
            Terminal.warn(Self.describeKept(paths.downloads))
            outcome = outcome.interrupted()
        }
        if let failure = outcome.failure {
            try? outcome.record().save(paths)
            throw SyncExitStatus.fail("sync", failure)
        }
        if let metadata = outcome.metadata {
            Terminal.say(SyncRunSummary.describe(metadata))
            for line in SyncRunSummary.notes(metadata) { Terminal.warn("storybridge sync: \(line)") }
        }
        if let report = outcome.content {
            Terminal.say(SyncRunSummary.describe(report))
            for line in SyncRunSummary.remarks(report) { Terminal.say(line) }
            for failure in report.failed { Terminal.warn("storybridge sync: \(failure.error)") }
            await diffReports?.make(updated: report.installed.map(\.id))
        }
        PhaseTiming.measure("run record written") { try? outcome.record().save(paths) }
        if outcome.exitStatus != 0 { throw ExitCode(outcome.exitStatus) }
    }

    /// What an interrupted run leaves for the next one: the partial downloads and their size.
    static func describeKept(_ downloads: URL) -> String {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: downloads.path)) ?? []).filter { $0.hasSuffix(".part") }
        guard !names.isEmpty else { return "kept: no partial download" }
        let bytes = names.reduce(Int64(0)) { sum, name in
            let path = downloads.appendingPathComponent(name).path
            return sum + (((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0)
        }
        return String(
            format: "kept: %d partial download%@, %.1f MB in %@", names.count, names.count == 1 ? "" : "s", Double(bytes) / 1e6,
            downloads.path)
    }

    private func showStatus() async throws {
        let store = try library.openLibrary()
        let catalog = SyncCatalog(database: store.database)
        let rows: [SyncedPresentation]
        let clients: [SyncedClient]
        let session: SyncSession?
        do {
            rows = try await catalog.presentations()
            clients = try await catalog.clients()
            session = try SyncLogin.session(directory: library.directory)
        } catch {
            throw SyncExitStatus.fail("sync", error)
        }
        let onDisk: [Int: Int64] = Dictionary(
            uniqueKeysWithValues: rows.map { row in
                (
                    row.id,
                    PartialDownload(
                        folder: SyncPaths(library.directory).downloads, presentationId: row.id, revision: row.packageRevision ?? 0
                    ).bytesOnDisk
                )
            })
        let lastRun = SyncRunRecord.load(SyncPaths(library.directory))
        let pins: [Int: RevisionPin]
        let saved: [Int: Int64]
        let trust: [Int: DeckTrustHealth]
        do {
            pins = try await store.database.read { db in try RevisionPin.all(db) }
            saved = try store.bytesSavedByDelta()
            trust = try await store.database.read { db in try InstalledTrust.served(db) }.mapValues(DeckTrustHealth.init)
        } catch {
            throw CommandFailure("cannot read the pins and history of presentations", error, status: CommandFailure.storage)
        }
        let totalSaved = saved.values.reduce(0, +)
        if json {
            let value: JSONValue = [
                "lastRun": lastRun.map { run in
                    [
                        "finishedAt": .string(ISO8601DateFormatter().string(from: run.finishedAt)),
                        "exitStatus": .int(Int(run.exitStatus)), "notes": .array(run.notes.map(JSONValue.string)),
                    ]
                } ?? .null,
                "loggedIn": .bool(session != nil),
                "api": session.map { .string($0.apiURL.absoluteString) } ?? .null,
                "clients": .array(clients.map { ["id": .int($0.id), "name": .string($0.name)] }),
                "bytesSavedByDelta": .int(Int(totalSaved)),
                "presentations": .array(
                    rows.map { row in
                        [
                            "presId": .int(row.id), "clientId": .int(row.clientId), "name": .string(row.name),
                            "state": .string(row.state.rawValue), "stateLabel": .string(row.stateLabel),
                            "lastError": row.lastError.map(JSONValue.string) ?? .null,
                            "revision": .int(row.listedRevision),
                            "remotePackageRevision": row.packageRevision.map(JSONValue.int) ?? .null,
                            "installedPackageRevision": row.installedRevision.map(JSONValue.int) ?? .null,
                            "sizeBytes": row.packageSize.map { JSONValue.int(Int($0)) } ?? .null,
                            "partialBytes": .int(Int(onDisk[row.id] ?? 0)), "skip": .bool(row.skip),
                            "warning": row.warning.map(JSONValue.string) ?? .null,
                            "withdrawnAt": row.withdrawnAt.map { .string(ISO8601DateFormatter().string(from: $0)) } ?? .null,
                            "pinnedAt": pins[row.id].map { .string(ISO8601DateFormatter().string(from: $0.pinnedAt)) } ?? .null,
                            "bytesSavedByDelta": .int(Int(saved[row.id] ?? 0)),
                            "trust": row.installedRevision == nil ? .null : (trust[row.id] ?? .unverified).json(now: Date()),
                        ]
                    }),
            ]
            Terminal.say(value.jsonString())
            return
        }
        if let session {
            Terminal.say("logged in to \(session.apiURL.absoluteString) as \(session.who)")
        } else {
            Terminal.say("not logged in (storybridge login)")
        }
        if let lastRun {
            let when = ISO8601DateFormatter().string(from: lastRun.finishedAt)
            let outcome = lastRun.exitStatus == 0 ? "complete" : lastRun.exitStatus == SyncExitStatus.partial ? "partial" : "failed"
            Terminal.say("last sync \(when): \(outcome) (exit status \(lastRun.exitStatus))")
            for note in lastRun.notes { Terminal.say("  - \(note)") }
        }
        guard !rows.isEmpty else {
            Terminal.say("nothing synced yet (storybridge sync)")
            return
        }
        let names = Dictionary(uniqueKeysWithValues: clients.map { ($0.id, $0.name) })
        Terminal.say("    ID  CLIENT          INSTALLED  REMOTE       SIZE  STATE / NAME")
        for row in rows {
            var state = row.skip ? "skipped (marked skip on the service)" : row.stateLabel
            if pins[row.id] != nil { state += ", pinned by rollback (storybridge unpin \(row.id))" }
            if let partial = onDisk[row.id], partial > 0, row.state != .ready {
                state += String(format: ", %.1f MB of a download kept", Double(partial) / 1e6)
            }
            if let bytes = saved[row.id], bytes > 0 { state += String(format: ", %.1f MB saved by delta updates", Double(bytes) / 1e6) }
            if row.installedRevision != nil { state += ", " + Self.trustLabel(trust[row.id] ?? .unverified) }
            Terminal.say(
                String(
                    format: "%6d  %-14@  %9@  %6@  %9@  %@ / %@", row.id, String((names[row.clientId] ?? "\(row.clientId)").prefix(14)),
                    row.installedRevision.map(String.init) ?? "-", row.packageRevision.map(String.init) ?? "-",
                    row.packageSize.map { String(format: "%.1f MB", Double($0) / 1e6) } ?? "-", state, row.name))
        }
        if totalSaved > 0 {
            Terminal.say(
                String(format: "delta updates saved %.1f MB in all (the package sizes less the bytes fetched)", Double(totalSaved) / 1e6))
        }
    }

    /// What the status table says of a deck's files: signed until when (or expired), unsigned,
    /// quarantined with the reason, or not verified (installed before signed packages).
    static func trustLabel(_ trust: DeckTrustHealth, now: Date = Date()) -> String {
        switch trust.status {
        case "signed":
            guard let expires = trust.expires else { return "signed" }
            let day = ISO8601DateFormatter().string(from: expires)
            return now >= expires ? "signed, manifest expired \(day) (still served)" : "signed until \(day)"
        case "quarantined": return "quarantined: \(trust.result ?? "files differ from the manifest")"
        case "unverified": return "not verified (installed before signed packages)"
        default: return trust.status
        }
    }

    /// Warnings only (retries are logged at notice level and stay quiet).
    static func quietLogger() -> Logger {
        var logger = Logger(label: "storybridge.sync") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = ProcessInfo.processInfo.environment["STORYBRIDGE_SYNC_DEBUG"] == nil ? .warning : .debug
        return logger
    }
}
