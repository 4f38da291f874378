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
            Without options: fetch the client list, then only the presentations whose revision \
            changed, and record them in the catalog; presentations gone from the service are removed \
            with their files; presentations marked skip are left alone. With --content, also download \
            the packages that are missing or out of date (all, or the ids given), two at a time by \
            default: each streams to a partial file in DATA-DIR/downloads that an interrupted run \
            (Ctrl-C, a dropped connection, a crash, a reboot) resumes; its size must equal the declared \
            one; it passes the same archive checks as storybridge install; it is unpacked beside the \
            installed revision, which keeps being served until the new one is complete and valid. \
            A running `storybridge serve` of the library picks it up and reloads its viewers.

            States (--status): not downloaded, update available, downloading, ready, failed (reason).

            \(SyncExitStatus.helpText)
            """)

    @Flag(help: "Also download the packages that are missing or out of date.")
    var content = false

    @Argument(help: "With --content: only these presentation ids.")
    var ids: [Int] = []

    @Flag(help: "Show each synced presentation's state, revisions, size and last error (no network).")
    var status = false

    @Flag(help: "With --status: print JSON.")
    var json = false

    @Option(help: "Packages downloaded at the same time.")
    var concurrency = 2

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        if !ids.isEmpty && !content {
            throw ValidationError(
                "presentation ids go with --content: storybridge sync --content \(ids.map(String.init).joined(separator: " "))")
        }
        if json && !status { throw ValidationError("--json goes with --status") }
        if status && content { throw ValidationError("--status only shows; run it without --content") }
        guard (1...16).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 16") }
    }

    func run() async throws {
        if status {
            try await showStatus()
            return
        }
        let lock: SyncLock
        do {
            try library.directory.prepare()
            lock = try SyncLock(file: SyncPaths(library.directory).lockFile)
        } catch let error as SyncError {
            throw SyncExitStatus.fail("sync", error)
        }
        defer { withExtendedLifetime(lock) {} }
        let service: SyncService
        do {
            service = try SyncService(directory: library.directory, logger: Self.quietLogger())
        } catch {
            throw SyncExitStatus.fail("sync", error)
        }
        let display = SyncProgressDisplay()
        let wantsContent = content
        let onlyIds = ids.isEmpty ? nil : ids
        let parallel = concurrency
        let sync = SyncRunService { () async -> SyncOutcome in
            do throws(SyncError) {
                let metadata = try await service.syncMetadata()
                guard wantsContent else { return .success((metadata, nil)) }
                let report = try await service.syncContent(ids: onlyIds, concurrency: parallel, events: { display.handle($0) })
                return .success((metadata, report))
            } catch {
                return .failure(error)
            }
        }
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
        await service.shutdown()
        let result = sync.outcome ?? .failure(.interrupted)
        if sync.wasInterrupted { Terminal.warn(Self.describeKept(SyncPaths(library.directory).downloads)) }
        switch result {
        case .failure(let error):
            if sync.wasInterrupted { throw SyncExitStatus.fail("sync", .interrupted) }
            throw SyncExitStatus.fail("sync", error)
        case .success(let (metadata, report)):
            Terminal.say(Self.describe(metadata))
            guard let report else { return }
            Terminal.say(Self.describe(report))
            if let first = report.failed.first {
                for failure in report.failed.dropFirst() { Terminal.warn("storybridge sync: \(failure.error)") }
                throw SyncExitStatus.fail("sync", first.error)
            }
        }
    }

    typealias SyncOutcome = Result<(MetadataSyncReport, ContentSyncReport?), SyncError>

    static func describe(_ report: MetadataSyncReport) -> String {
        var parts = ["\(report.clients) client\(report.clients == 1 ? "" : "s")"]
        parts.append("\(report.added.count) new")
        parts.append("\(report.updated.count) changed")
        parts.append("\(report.unchanged) unchanged")
        parts.append("\(report.removed.count) removed")
        if !report.skipped.isEmpty { parts.append("\(report.skipped.count) skipped") }
        return "catalog: " + parts.joined(separator: ", ")
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

    static func describe(_ report: ContentSyncReport) -> String {
        var text = "content: \(report.installed.count) installed, \(report.upToDate) up to date, \(report.failed.count) failed"
        text += String(format: "; %.1f MB transferred", Double(report.bytesTransferred) / 1e6)
        if report.bytesResumed > 0 { text += String(format: ", %.1f MB resumed from earlier runs", Double(report.bytesResumed) / 1e6) }
        if report.linkRenewals > 0 { text += ", \(report.linkRenewals) expired link\(report.linkRenewals == 1 ? "" : "s") renewed" }
        return text
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
        if json {
            let value: JSONValue = [
                "loggedIn": .bool(session != nil),
                "api": session.map { .string($0.apiURL.absoluteString) } ?? .null,
                "clients": .array(clients.map { ["id": .int($0.id), "name": .string($0.name)] }),
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
        guard !rows.isEmpty else {
            Terminal.say("nothing synced yet (storybridge sync)")
            return
        }
        let names = Dictionary(uniqueKeysWithValues: clients.map { ($0.id, $0.name) })
        Terminal.say("    ID  CLIENT          INSTALLED  REMOTE       SIZE  STATE / NAME")
        for row in rows {
            var state = row.skip ? "skipped (marked skip on the service)" : row.stateLabel
            if let partial = onDisk[row.id], partial > 0, row.state != .ready {
                state += String(format: ", %.1f MB of a download kept", Double(partial) / 1e6)
            }
            Terminal.say(
                String(
                    format: "%6d  %-14@  %9@  %6@  %9@  %@ / %@", row.id, String((names[row.clientId] ?? "\(row.clientId)").prefix(14)),
                    row.installedRevision.map(String.init) ?? "-", row.packageRevision.map(String.init) ?? "-",
                    row.packageSize.map { String(format: "%.1f MB", Double($0) / 1e6) } ?? "-", state, row.name))
        }
    }

    /// Warnings only (retries are logged at notice level and stay quiet).
    static func quietLogger() -> Logger {
        var logger = Logger(label: "storybridge.sync") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = ProcessInfo.processInfo.environment["STORYBRIDGE_SYNC_DEBUG"] == nil ? .warning : .debug
        return logger
    }
}
