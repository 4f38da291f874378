import Foundation
import GRDB
import Logging
import StoryBridge

/// What a content sync did.
package struct ContentSyncReport: Sendable {
    /// Presentations installed or updated, with the package revision installed.
    package var installed: [(id: Int, revision: Int)] = []
    /// Presentations whose download or install failed.
    package var failed: [(id: Int, error: SyncError)] = []
    /// Presentations already up to date.
    var upToDate = 0
    /// Bytes received over the network.
    package var bytesTransferred: Int64 = 0
    /// Bytes reused from interrupted downloads.
    package var bytesResumed: Int64 = 0
    /// Packages updated as a delta of the installed revision, the range requests they took, the
    /// connections those went on (one per package when the server keeps connections alive), and
    /// the bytes they did not transfer (package sizes minus bytes fetched).
    package var deltaUpdates = 0
    package var deltaRequests = 0
    package var deltaConnections = 0
    package var bytesSaved: Int64 = 0
    /// Fresh download links asked for after a refused one.
    package var linkRenewals = 0
    /// Presentations asked for by id that the service marks skip (not downloaded).
    var markedSkip: [Int] = []
    /// Presentations brought because one asked for opens them (its `presentations` field).
    package var dependencies: [Int] = []
    /// Dependencies the service does not offer.
    var missingDependencies: [Int] = []
    /// Presentations the service has no package for (204 on the content package).
    var withoutPackage: [Int] = []
    /// Packages installed with a warning (a size other than the declared one).
    package var warnings: [(id: Int, warning: String)] = []
    /// Presentations left on a rolled-back revision because they are pinned (`storybridge rollback`).
    package var pinned: [Int] = []
    /// Up-to-date presentations whose stored manifest a re-signed one replaced (no download).
    var manifestsRefreshed: [Int] = []
    /// Re-signed manifests refused or not reachable (the stored one stays; the run does not fail).
    var manifestWarnings: [(id: Int, warning: String)] = []
}

/// Downloads content packages and installs them into the library: bounded concurrency, each
/// package streamed resumably to a partial file, its size checked against the declared one,
/// free space checked first, the archive checked like `storybridge install`, missing media
/// files fetched, and the new revision unpacked beside the old one and swapped in by one
/// transaction that also records it in the sync catalog. A failure leaves the old revision in place.
package struct ContentSync: Sendable {
    package let api: ContentAPIClient
    package let catalog: SyncCatalog
    package let library: LibraryStore
    package let paths: SyncPaths
    package let downloader: ResumableDownloader
    package var concurrency: Int
    package var limits: PackageLimits
    package var logger: Logger
    /// Update an installed package by fetching only its changed entries when the server allows
    /// (see docs/SYNC.md, "Delta updates"); false always downloads whole packages.
    package var deltaUpdates = true
    /// Earlier revisions kept on disk per presentation for `storybridge rollback` (`--keep-revisions`).
    package var keepRevisions = 1
    /// The free bytes of the file system holding a folder (`statvfs`), asked before a download
    /// or a delta update writes anything; nil when it cannot be told (the check is skipped).
    /// A test gives its own to stand for a nearly full disk.
    package var freeBytes: @Sendable (URL) -> Int64? = { PosixIO.freeBytes(at: $0.path) }
    /// Judges each package against its signed manifest, or records an unsigned one's hashes
    /// (docs/SYNC.md, "Signed packages"); `nil` installs without either (tests of other parts).
    package var trust: TrustGate?

    package init(
        api: ContentAPIClient, catalog: SyncCatalog, library: LibraryStore, paths: SyncPaths, downloader: ResumableDownloader,
        concurrency: Int = 2, limits: PackageLimits = PackageLimits(), logger: Logger
    ) {
        self.api = api
        self.catalog = catalog
        self.library = library
        self.paths = paths
        self.downloader = downloader
        self.concurrency = concurrency
        self.limits = limits
        self.logger = logger
    }

    /// Downloads the packages of `ids` (every presentation that needs one when nil).
    package func run(ids: [Int]?, events: @escaping @Sendable (ContentSyncEvent) -> Void) async throws(SyncError) -> ContentSyncReport {
        let planBegan = PhaseTiming.begin()
        try await catalog.settleInterruptedDownloads()
        let installedFolders = await BlockingIO.run { [library, paths] () -> [Int: String] in
            DeltaIndex.sweep(in: library.directory)
            let installed = try? library.database.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT id, folder FROM presentation WHERE source LIKE 'sync:%'")
                    .reduce(into: [Int: String]()) { $0[$1["id"]] = $1["folder"] }
            }
            // Both unlink names of installed inodes (a killed delta's work folder, a stale ready
            // tree): the installed revisions' verified facts are kept across that, when there is
            // anything to remove (docs/design/TRUST.md 2.3.1).
            let sweep = {
                DeltaFetch.sweepWorkFiles(in: paths.downloads)
                ReadyTree.sweep(in: paths, installed: installed ?? [:])
            }
            if DeltaFetch.hasWorkFiles(in: paths.downloads) || !ReadyTree.stale(in: paths, installed: installed ?? [:]).isEmpty {
                VerifiedFacts.preserving(folders: Array((installed ?? [:]).values), in: library.directory, sweep)
            } else {
                sweep()
            }
            return installed ?? [:]
        }
        let quarantined = await BlockingIO.run { [library, logger] () -> Set<Int> in
            do {
                try InstalledTrust.sweepUnnamedManifests(library.database.pool)
            } catch {
                logger.warning("stored manifests no revision names were not removed", metadata: ["error": "\(error)"])
            }
            return (try? library.database.pool.read { db in try InstalledTrust.quarantinedPresentations(db) }) ?? []
        }
        let rows = try await catalog.presentations()
        let (installedFromSync, pins) = try await catalog.read { db in
            (Set(try Int.fetchAll(db, sql: "SELECT id FROM presentation WHERE source LIKE 'sync:%'")), try RevisionPin.all(db))
        }
        PhaseTiming.record("content plan (catalog read, leftovers swept)", since: planBegan)
        var targets: [SyncedPresentation] = []
        var current: [SyncedPresentation] = []
        var report = ContentSyncReport()
        if let ids {
            let byId = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0) })
            for id in ids where byId[id] == nil { throw .unknownPresentation(id) }
            let closure = DependencyClosure(roots: ids, rows: byId)
            report.dependencies = closure.added
            report.missingDependencies = closure.missing
            for id in ids + closure.added {
                guard let row = byId[id] else { continue }
                if row.skip {
                    report.markedSkip.append(id)
                } else if Self.isHeldByPin(row, pins: pins) {
                    report.pinned.append(id)
                } else if Self.needsDownload(row, installed: installedFromSync, quarantined: quarantined) {
                    targets.append(row)
                } else {
                    report.upToDate += 1
                    current.append(row)
                }
            }
        } else {
            for row in rows where !row.skip {
                if Self.isHeldByPin(row, pins: pins) {
                    report.pinned.append(row.id)
                } else if Self.needsDownload(row, installed: installedFromSync, quarantined: quarantined) {
                    targets.append(row)
                } else {
                    report.upToDate += 1
                    current.append(row)
                }
            }
        }
        let onDisk = await BlockingIO.run { [paths, targets] in
            targets.reduce(Int64(0)) { sum, row in
                sum + PartialDownload(folder: paths.downloads, presentationId: row.id, revision: row.packageRevision ?? 0).bytesOnDisk
            }
        }
        events(.planned(packages: targets.count, totalBytes: targets.reduce(0) { $0 + ($1.packageSize ?? 0) }, onDiskBytes: onDisk))
        // The keys document is fetched while the first packages are asked for (each package's
        // manifest check waits for it); a child task, so it has ended when the content sync has
        // (also when no package needed it, or the run is interrupted).
        async let keysPrepared: Void = prepareTrust(needed: !targets.isEmpty)
        let outcomes = try await boundedMap(targets, limit: concurrency) {
            (row: SyncedPresentation) async throws(SyncError) -> PackageOutcome in
            do throws(SyncError) {
                return try await self.installPackage(row, wholePackage: quarantined.contains(row.id), events: events)
            } catch .interrupted {
                throw .interrupted
            } catch {
                events(.failed(presentationId: row.id, error: error))
                try? await self.catalog.setState(row.id, .failed, error: error.description)
                return PackageOutcome(id: row.id, revision: nil, error: error, download: nil)
            }
        }
        await keysPrepared
        for outcome in outcomes {
            if outcome.noPackage { report.withoutPackage.append(outcome.id) }
            if let warning = outcome.warning { report.warnings.append((outcome.id, warning)) }
            if let error = outcome.error { report.failed.append((outcome.id, error)) }
            if let revision = outcome.revision { report.installed.append((outcome.id, revision)) }
            if outcome.transfer == .delta {
                report.deltaUpdates += 1
                report.deltaRequests += outcome.requests
                report.deltaConnections += outcome.connections
                report.bytesSaved += outcome.saved
            }
            if let download = outcome.download {
                report.bytesTransferred += download.transferred
                report.bytesResumed += download.resumedFrom
                report.linkRenewals += download.linkRenewals
            }
        }
        // Revisions this run did not install keep theirs, or get the one a kill, a rollback or
        // an earlier version left them without.
        let installedNow = Set(report.installed.map(\.id))
        await makeUpReadyTrees(installedFolders.filter { !installedNow.contains($0.key) })
        let refreshed = await refreshManifests(of: current.filter { installedFromSync.contains($0.id) })
        report.manifestsRefreshed = refreshed.replaced
        report.manifestWarnings = refreshed.warnings
        return report
    }

    /// Whether a presentation's package is to be fetched: one is offered, the presentation is not
    /// withdrawn, and the installed package (id and revision) is not the offered one, or the
    /// served revision is quarantined (`storybridge verify` found its files changed: it is
    /// downloaded again even at the same revision).
    static func needsDownload(_ row: SyncedPresentation, installed: Set<Int>, quarantined: Set<Int> = []) -> Bool {
        guard row.packageRevision != nil, row.state != .withdrawn else { return false }
        return row.needsPackage || !installed.contains(row.id) || quarantined.contains(row.id)
    }

    /// Whether a rolled-back presentation stays on its pinned revision: the offered package is
    /// not newer than the one it was rolled back from.
    static func isHeldByPin(_ row: SyncedPresentation, pins: [Int: RevisionPin]) -> Bool {
        guard let pin = pins[row.id] else { return false }
        return !pin.isLifted(byOfferedPackageRevision: row.packageRevision)
    }

    struct PackageOutcome: Sendable {
        var id: Int
        var revision: Int?
        var error: SyncError?
        var download: ResumableDownloader.Outcome?
        var noPackage = false
        var warning: String?
        var transfer = PackageTransfer.full
        /// Range requests of a delta update, the connections they took, and the bytes it did not transfer.
        var requests = 0
        var connections = 0
        var saved: Int64 = 0
    }

    /// Installs the package of `row`; when it was republished during the download (a renewed
    /// link named another revision), starts over once with the new one.
    private func installPackage(
        _ row: SyncedPresentation, wholePackage: Bool = false, events: @escaping @Sendable (ContentSyncEvent) -> Void
    ) async throws(SyncError) -> PackageOutcome {
        var restarts = 0
        while true {
            do {
                return try await installPackageOnce(row, wholePackage: wholePackage, events: events)
            } catch .packageChanged(let id) where restarts < 2 {
                restarts += 1
                logger.notice("package republished during its download; starting over", metadata: ["presentation": "\(id)"])
            }
        }
    }

    /// `wholePackage`: no delta update (the installed tree is quarantined: it is what is suspect,
    /// and a delta would link its files).
    private func installPackageOnce(
        _ row: SyncedPresentation, wholePackage: Bool, events: @escaping @Sendable (ContentSyncEvent) -> Void
    ) async throws(SyncError) -> PackageOutcome {
        let id = row.id
        do throws(SyncError) {
            try await PhaseTiming.measure("state set to downloading") { () async throws(SyncError) in
                try await catalog.setState(id, .downloading)
            }
            let package = try await PhaseTiming.measure("content package request") { () async throws(SyncError) in
                try await self.api.contentPackage(presentationId: id)
            }
            guard let package else {
                try await catalog.recordNoPackage(id)
                return PackageOutcome(id: id, revision: nil, error: nil, download: nil, noPackage: true)
            }
            guard let sas = package.sas, !sas.isEmpty else { throw .noContentPackage(id) }
            try await refusesLocalCollision(id)
            // The keys and the manifest are fetched while a delta update fetches its entries (a
            // refused manifest then discards them, as a refused tree does); a full download waits
            // for them, so that a refused manifest saves it.
            let trust = self.trust
            let fetchingExpectation = Task { () async -> Result<TrustGate.Expectation?, SyncError> in
                do throws(SyncError) {
                    return .success(
                        try await PhaseTiming.measure("trust: keys and manifest fetched") { () async throws(SyncError) in
                            try await trust?.expectation(row: row, package: package)
                        })
                } catch {
                    return .failure(error)
                }
            }
            defer { fetchingExpectation.cancel() }
            let expectation: @Sendable () async throws(SyncError) -> TrustGate.Expectation? = {
                try await fetchingExpectation.value.get()
            }
            let partial = PartialDownload(folder: paths.downloads, presentationId: id, revision: package.revision)
            let api = self.api
            let blob = ResumableDownloader.Blob(
                presentationId: id, blobId: package.blobId, revision: package.revision, expectedSize: package.fileSize,
                link: sas,
                freshLink: { () async throws(SyncError) -> ResumableDownloader.RenewedLink in
                    guard let fresh = try await api.contentPackage(presentationId: id), let link = fresh.sas else {
                        throw .noContentPackage(id)
                    }
                    return .init(link: link, revision: fresh.revision, blobId: fresh.blobId, size: fresh.fileSize)
                })
            // An interrupted full download of this revision is resumed rather than replaced by a delta.
            var receivedByDelta: Int64 = 0
            // The new revision's verified facts, written once it is served (not waited for).
            let factsAfterSwap = VerifiedFactsAfterSwap()
            if partial.bytesOnDisk == 0 && !wholePackage {
                // The delta update's own time, which docs/BENCHMARKS.md compares with curl + unzip.
                let attempt = try await PhaseTiming.measure("delta update (decision to fetch to swap)") { () async throws(SyncError) in
                    try await deltaInstall(
                        row, package: package, link: sas, blob: blob, partial: partial, expectation: expectation,
                        factsAfterSwap: factsAfterSwap, events: events)
                }
                switch attempt {
                case .installed(let outcome):
                    await saveVerifiedFacts(factsAfterSwap)
                    await buildReadyTree(of: id)
                    return outcome
                case .fullDownload(let alreadyReceived): receivedByDelta = alreadyReceived
                }
            }
            let expected = try await expectation()
            try await checkFreeSpace(needed: (package.fileSize - partial.bytesOnDisk) + package.fileSize)
            events(.started(presentationId: id, name: row.name, size: package.fileSize, onDisk: partial.bytesOnDisk - receivedByDelta))
            var download = try await downloader.download(blob, into: partial) { done in
                events(.progress(presentationId: id, bytesOnDisk: done))
            }
            // Bytes the delta's first request received (the whole package) count as transferred, not resumed.
            download.transferred += receivedByDelta
            download.resumedFrom = max(0, download.resumedFrom - receivedByDelta)
            let received = partial.bytesOnDisk
            guard received == download.size else {
                partial.discard()
                throw .sizeMismatch(presentationId: id, expected: download.size, received: received)
            }
            // A size other than the declared one is accepted only when the archive validates
            // completely: its central directory here, every entry's CRC while it is unpacked.
            let warning =
                received == package.fileSize
                ? nil : "the package is \(received) bytes, the service declared \(package.fileSize); the archive validated completely"
            events(.installing(presentationId: id))
            let files: [String]
            switch await BlockingIO.run({ [limits] in
                Result { () throws(PackageError) in try PackageExtractor(limits: limits).filePaths(zip: partial.partFile) }
            }) {
            case .success(let paths): files = paths
            case .failure(let error):
                partial.discard()
                if warning != nil { throw .sizeMismatch(presentationId: id, expected: package.fileSize, received: received) }
                throw .packageRefused(presentationId: id, error)
            }
            let media = try await fetchMissingMedia(presentationId: id, packageFiles: Set(files))
            try await install(
                row: row, package: package, partial: partial, media: media, warning: warning,
                transferred: download.transferred, packageSize: received, expected: expected, factsAfterSwap: factsAfterSwap)
            await discardDownloads(of: id, media: media)
            events(.installed(presentationId: id, revision: package.revision))
            await saveVerifiedFacts(factsAfterSwap)
            await buildReadyTree(of: id)
            return PackageOutcome(id: id, revision: package.revision, error: nil, download: download, warning: warning)
        } catch .interrupted {
            // The run is being cancelled; the state is put back by a task that is not.
            let catalog = self.catalog
            let settled = row.settledState
            await Task { try? await catalog.setState(id, settled) }.value
            throw .interrupted
        }
    }

    /// Rule 2's preparation (``TrustGate/prepare()``) when packages are to be fetched and trust
    /// is configured.
    private func prepareTrust(needed: Bool) async {
        if needed, let trust { await trust.prepare() }
    }

    /// Writes the verified facts an install handed to `factsAfterSwap`, off the cooperative pool,
    /// once its swap has committed (docs/design/TRUST.md 2.3.1).
    func saveVerifiedFacts(_ factsAfterSwap: VerifiedFactsAfterSwap) async {
        await BlockingIO.run { [directory = library.directory] in factsAfterSwap.save(in: directory) }
    }

    /// Installs a package: the downloaded zip unpacked (its entry index kept), or the folder
    /// `assemble` builds (a delta update, which names the files it places in `assembled`); a
    /// signed or recorded tree's verified facts go to `factsAfterSwap`, for the caller to write
    /// after the swap.
    func install(
        row: SyncedPresentation, package: RemoteContentPackage, partial: PartialDownload, media: [String: URL],
        warning: String?, transferred: Int64, packageSize: Int64, how: PackageTransfer = .full,
        expected: TrustGate.Expectation? = nil, vouched: [String: HashedFile] = [:],
        assembled: AssembledTree? = nil, factsAfterSwap: VerifiedFactsAfterSwap? = nil,
        assemble: (@Sendable (URL) throws -> LibraryStore.AssembledFolder)? = nil
    ) async throws(SyncError) {
        var options = LibraryStore.InstallOptions(id: row.id, name: row.name.isEmpty ? "Presentation \(row.id)" : row.name)
        options.shortDescription = row.shortDescription
        options.longDescription = row.longDescription
        options.order = row.sortOrder
        options.revision = row.fetchedRevision ?? row.listedRevision
        options.source = SyncPaths.librarySourcePrefix + api.apiURL.absoluteString
        options.limits = limits
        options.extraFiles = media
        options.keepsReplacedFolder = true
        options.keptRevisions = keepRevisions
        options.how = how == .delta ? .delta : .full
        // A full download's files are hashed as they are unpacked when the tree is to be checked,
        // so the check reads none of them back (docs/design/TRUST.md 2.3).
        options.assemble =
            assemble
            ?? Self.unpackKeepingIndex(zip: partial.partFile, limits: limits, directory: library.directory, hashing: expected != nil)
        options.bytesTransferred = transferred
        options.packageSize = packageSize
        options.packageRevision = package.revision
        if let expected {
            options.verify = TrustGate.verifier(
                expected, presentationId: row.id, presentationRevision: options.revision ?? row.listedRevision, packageId: package.id,
                packageRevision: package.revision, vouched: vouched,
                // The media files added to the tree are placed files too.
                assembled: assembled.map { AssembledTree(linked: $0.linked, placed: $0.placed + media.keys) },
                factsAfterSwap: factsAfterSwap)
        }
        let presentationRevision = options.revision
        let library = self.library
        let zip = partial.partFile
        let id = row.id
        let packageRevision = package.revision
        // Unzip, moves and the catalog transaction are blocking: on the blocking pool, not the cooperative one.
        let result: Result<Void, SyncError> = await BlockingIO.run { [options] in
            do {
                // Not read back: nothing here uses the entry, and the committed transaction is
                // what serves the revision (docs/SYNC.md, "Assembly").
                try library.installRevision(
                    zip: zip, options: options, progress: nil,
                    alongside: { db in
                        try db.execute(
                            sql: """
                                UPDATE syncPresentation SET installedRevision = ?, installedPresentationRevision = ?,
                                  installedPackageId = ?, packageId = ?, packageRevision = ?, packageSize = ?, state = 'ready',
                                  lastError = NULL, failedDuring = NULL, warning = ?, updatedAt = ?
                                WHERE id = ?
                                """,
                            arguments: [
                                packageRevision, presentationRevision, package.id, package.id, packageRevision, package.fileSize,
                                warning, Date(), id,
                            ])
                    })
                return .success(())
            } catch let error as PackageError {
                return .failure(.packageRefused(presentationId: id, error))
            } catch let error as TrustFailure {
                return .failure(.trustRefused(presentationId: id, error))
            } catch let error as LibraryError {
                return .failure(.storage(error.description))
            } catch {
                return .failure(SyncCatalog.storageError(error))
            }
        }
        if case .failure(let error) = result {
            switch error {
            case .packageRefused, .trustRefused: partial.discard()
            default: break
            }
            throw error
        }
    }

    private func refusesLocalCollision(_ id: Int) async throws(SyncError) {
        let source = try await catalog.read { db in
            try String.fetchOne(db, sql: "SELECT source FROM presentation WHERE id = ?", arguments: [id])
        }
        if let source, !source.hasPrefix(SyncPaths.librarySourcePrefix) { throw .idTakenByLocalPresentation(id) }
    }

    func checkFreeSpace(needed: Int64) async throws(SyncError) {
        let (downloads, freeBytes) = (paths.downloads, self.freeBytes)
        let free = await BlockingIO.run {
            try? FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
            return freeBytes(downloads)
        }
        if let free, free < needed { throw .insufficientSpace(needed: needed, available: free) }
    }

    /// Removes an installed package's downloads: its part files and the media files it took.
    func discardDownloads(of id: Int, media: [String: URL]) async {
        await BlockingIO.run { [paths] in
            for file in media.values { unlink(file.path) }
            PartialDownload.discardAll(presentationId: id, in: paths.downloads)
        }
    }

    /// A media file the presentation lists, and the service's object for it (nil: 204).
    typealias MediaLookup = (stub: SyncedMediaFile, found: RemoteMediaFile?)

    /// Asks the service for every media file the presentation lists, four at a time: only the
    /// object names the file, so each one is looked up even when the package carries them all.
    func lookUpMediaFiles(presentationId: Int) async throws(SyncError) -> [MediaLookup] {
        let stubs = try await catalog.mediaFiles(presentationId: presentationId)
        let api = self.api
        return try await boundedMap(stubs, limit: 4) { (stub: SyncedMediaFile) async throws(SyncError) -> MediaLookup in
            (stub, try await api.mediaFile(id: stub.id))
        }
    }

    /// Downloads the media files the presentation lists that its package does not carry under
    /// `mediafiles/`; returns package path → downloaded file.
    /// `lookedUp`: the media file objects when ``lookUpMediaFiles(presentationId:)`` already
    /// asked for them (the delta path does while it fetches the package's changed entries).
    func fetchMissingMedia(
        presentationId: Int, packageFiles: Set<String>, lookedUp: [MediaLookup]? = nil
    ) async throws(SyncError) -> [String: URL] {
        let media: [MediaLookup]
        if let lookedUp {
            media = lookedUp
        } else {
            media = try await lookUpMediaFiles(presentationId: presentationId)
        }
        var files: [String: URL] = [:]
        for (stub, found) in media {
            guard let media = found else {
                throw .mediaFileFailed(presentationId: presentationId, mediaFileId: stub.id, reason: "the service has no such file (204)")
            }
            let name = media.fileName
            guard !name.isEmpty, !name.contains("/"), name != "..", name != "." else {
                throw .mediaFileFailed(presentationId: presentationId, mediaFileId: stub.id, reason: "unsafe file name '\(name)'")
            }
            let path = "mediafiles/\(name)"
            if packageFiles.contains(path) { continue }
            guard let sas = media.sas, !sas.isEmpty else {
                throw .mediaFileFailed(presentationId: presentationId, mediaFileId: stub.id, reason: "no download link")
            }
            let partial = PartialDownload(
                folder: paths.downloads, presentationId: presentationId, mediaFileId: media.id, revision: media.revision)
            try await checkFreeSpace(needed: media.fileSize - partial.bytesOnDisk)
            let mediaId = media.id
            let blob = ResumableDownloader.Blob(
                presentationId: presentationId, blobId: media.blobId, revision: media.revision, expectedSize: media.fileSize,
                link: sas,
                freshLink: { () async throws(SyncError) -> ResumableDownloader.RenewedLink in
                    guard let fresh = try await api.mediaFile(id: mediaId), let link = fresh.sas else {
                        throw .mediaFileFailed(presentationId: presentationId, mediaFileId: mediaId, reason: "no download link")
                    }
                    return .init(link: link, revision: fresh.revision, blobId: fresh.blobId, size: fresh.fileSize)
                })
            let download = try await downloader.download(blob, into: partial) { _ in }
            guard partial.bytesOnDisk == media.fileSize, download.size == media.fileSize else {
                partial.discard()
                throw .mediaFileFailed(
                    presentationId: presentationId, mediaFileId: stub.id, reason: "size differs from the declared \(media.fileSize) bytes")
            }
            files[path] = partial.partFile
        }
        return files
    }
}
