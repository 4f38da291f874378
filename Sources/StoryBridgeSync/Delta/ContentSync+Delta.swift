import Foundation
import StoryBridge
import Synchronization

/// How a package reached the library, and what the delta path saved.
enum PackageTransfer: String, Sendable, Hashable {
    /// The whole package was downloaded.
    case full
    /// Only the changed entries were fetched; unchanged files were linked from the installed revision.
    case delta
}

/// How a delta attempt ended.
enum DeltaAttempt: Sendable {
    /// The new revision is installed.
    case installed(ContentSync.PackageOutcome)
    /// The full download is the way; `alreadyReceived` bytes of it came as the answer to the
    /// first range request (a server that sent the whole package) and are in its part file.
    case fullDownload(alreadyReceived: Int64)
}

/// The bytes of a whole-package reply kept by a delta attempt (set by the reply's handler).
private final class KeptReplyBytes: Sendable {
    let bytes = Mutex<Int64>(0)
}

extension ContentSync {
    /// ``lookUpMediaFiles(presentationId:)`` as a result, to run beside another task (`async let`).
    func lookUpMediaFilesResult(presentationId: Int) async -> Result<[MediaLookup], SyncError> {
        do throws(SyncError) {
            return .success(try await lookUpMediaFiles(presentationId: presentationId))
        } catch {
            return .failure(error)
        }
    }

    /// Builds the ready tree of presentation `id`'s installed revision (``ReadyTree``) for its
    /// next delta update, after an install's swap; a failure is a warning, never the sync's.
    func buildReadyTree(of id: Int) async {
        await buildReadyTrees(phase: "ready tree for the next update linked (after the swap)") { [library] in
            (try? library.folder(id: id)).flatMap { $0 }.map { [id: $0.lastPathComponent] } ?? [:]
        }
    }

    /// Builds the ready tree of each installed revision of `installed` (presentation id → its
    /// folder name) that has an entry index but no tree (a kill during a build, a rollback, a
    /// data folder of an earlier version); failures are warnings.
    func makeUpReadyTrees(_ installed: [Int: String]) async {
        guard !installed.isEmpty else { return }
        await buildReadyTrees(phase: "ready trees of installed revisions checked (made where missing)") { installed }
    }

    /// The trees of the revisions `installed` reads (presentation id → folder name; read off the
    /// cooperative pool, like the builds) that have an entry index and no tree yet, timed as
    /// `phase`; each failure is a warning.
    private func buildReadyTrees(phase: String, _ installed: @escaping @Sendable () -> [Int: String]) async {
        guard deltaUpdates else { return }
        let began = PhaseTiming.begin()
        let failures = await BlockingIO.run { [library, paths] () -> [(Int, any Error)] in
            var failures: [(Int, any Error)] = []
            for (id, folder) in installed().sorted(by: { $0.key < $1.key }) {
                let tree = ReadyTree(presentationId: id, installedFolder: folder, paths: paths)
                guard !FileManager.default.fileExists(atPath: tree.location.path),
                    let index = DeltaIndex.load(forFolder: folder, in: library.directory)
                else { continue }
                do {
                    // The build links every installed file (and removes the presentation's other
                    // trees): the revision's verified facts take the new change times.
                    _ = try VerifiedFacts.preserving(folders: [folder], in: library.directory) {
                        try tree.build(from: library.directory.presentations.appendingPathComponent(folder), index: index)
                    }
                } catch {
                    failures.append((id, error))
                }
            }
            return failures
        }
        PhaseTiming.record(phase, since: began)
        for (id, error) in failures {
            logger.warning("no ready tree for the next delta update: \(error)", metadata: ["presentation": "\(id)"])
        }
    }

    /// Builds a revision folder from a downloaded package like `storybridge install`, and keeps
    /// its entry index (`package-index/<folder>.json`) for the next update's delta, written
    /// before the swap so an installed revision always has one (or, after a crash, none).
    static func unpackKeepingIndex(zip: URL, limits: PackageLimits, directory: DataDirectory, hashing: Bool = false)
        -> @Sendable (URL) throws -> LibraryStore.AssembledFolder
    {
        { staging in
            let unpacked = try PackageExtractor(limits: limits).extract(zip: zip, to: staging, hashing: hashing)
            // A package the delta path cannot read (ZIP64...) simply gets no index.
            if let listing = try? ZipDirectory.read(file: zip) {
                try? DeltaIndex.save(listing, forFolder: staging.lastPathComponent, in: directory)
            }
            return LibraryStore.AssembledFolder(files: unpacked.files, bytes: unpacked.bytes, hashed: unpacked.hashed)
        }
    }

    /// Assembles the new revision folder in `staging`, then moves its entry index (written ahead
    /// by the fetch) into place for it; an assembly that failed gets none.
    static func assemblePlacingIndex(_ assembly: DeltaAssembly, into staging: URL, directory: DataDirectory) throws
        -> DeltaAssembly.Counts
    {
        let counts = try assembly.assemble(into: staging)
        if let written = assembly.delta.indexFile {
            PhaseTiming.measure("delta: entry index moved into place") {
                try? DeltaIndex.place(written, forFolder: staging.lastPathComponent, in: directory)
            }
        }
        return counts
    }

    /// Installs `package` as a delta of the installed revision: its central directory read with
    /// range requests, only changed and new entries fetched, unchanged files linked, then the
    /// same install and swap as a full download. Says, after logging why, when the full download
    /// is the way (``DeltaFallback``), with the bytes of it already received when the server
    /// answered the first range request with the whole package (`blob` is that download);
    /// throws when the package is refused, or its manifest (`expectation`, fetched meanwhile and
    /// awaited once the changed entries are in).
    func deltaInstall(
        _ row: SyncedPresentation, package: RemoteContentPackage, link: String, blob: ResumableDownloader.Blob,
        partial: PartialDownload, expectation: @Sendable () async throws(SyncError) -> TrustGate.Expectation? = { nil },
        factsAfterSwap: VerifiedFactsAfterSwap? = nil, events: @escaping @Sendable (ContentSyncEvent) -> Void
    ) async throws(SyncError) -> DeltaAttempt {
        let id = row.id
        guard deltaUpdates else { return .fullDownload(alreadyReceived: 0) }
        let indexBegan = PhaseTiming.begin()
        // The installed revision and its index; its verified facts, which with its trust record
        // vouch for the reused files (docs/design/TRUST.md 2.3.1), are read beside the fetch
        // below (missing or unreadable ones only mean the reused files are hashed).
        let found = await BlockingIO.run { [library] () -> (URL, DeltaIndex)? in
            guard let installed = try? library.folder(id: id),
                let index = DeltaIndex.load(forFolder: installed.lastPathComponent, in: library.directory)
            else { return nil }
            return (installed, index)
        }
        guard let (installed, index) = found else { return .fullDownload(alreadyReceived: 0) }
        PhaseTiming.record("delta: installed revision and its index loaded", since: indexBegan)
        // The installed record's manifest hash, which the revision's verified facts (with their
        // files' hashes, read by the linking before the ready tree's check) must be of, read while
        // the entries are fetched; missing facts mean every reused file is hashed.
        let folderName = installed.lastPathComponent
        let installedTrust = Task { [library, trust] () -> String? in
            guard trust != nil else { return nil }
            return await BlockingIO.run {
                PhaseTiming.measure("trust: installed revision's record read (beside the fetch)") {
                    (try? library.database.pool.read { db in try InstalledTrust.verifiedManifestHash(db, folder: folderName) }) ?? nil
                }
            }
        }
        defer { installedTrust.cancel() }
        var fetch = DeltaFetch(
            limits: limits, folder: paths.downloads, prefix: "\(id)-r\(package.revision).delta", installed: installed)
        fetch.connectTimeout = downloader.connectTimeout
        fetch.readTimeout = downloader.readTimeout
        fetch.rateLimiter = downloader.rateLimiter
        fetch.readyTree = ReadyTree(presentationId: id, installedFolder: installed.lastPathComponent, paths: paths)
        fetch.readyTreeRejected = { [logger] reason in
            logger.notice("ready tree not used, files linked instead: \(reason)", metadata: ["presentation": "\(id)"])
        }
        // The reused files are vouched for beside the fetch, once they are kept; used only when
        // the install has an expectation (trust configured).
        if trust != nil {
            let directory = library.directory
            fetch.installedFacts = { VerifiedFacts.load(forFolder: folderName, in: directory) }
            fetch.vouch = { reused, linked, verified in
                let manifestHash = await installedTrust.value
                return PhaseTiming.measure("trust: reused files vouched (beside the fetch)") {
                    TrustGate.vouched(reused: reused, linked: linked, facts: verified, installedManifestHash: manifestHash)
                }
            }
        }
        let kept = KeptReplyBytes()
        let downloader = self.downloader
        // Whether a whole-package reply can be kept, found out while the linking and the tail
        // request start (only such a reply waits for it).
        let hasRoom = Task { [self] in (try? await checkFreeSpace(needed: 2 * package.fileSize)) != nil }
        defer { hasRoom.cancel() }
        fetch.wholeBlobReply = { head, parts in
            guard await hasRoom.value, ResumableDownloader.canKeep(head) else { return false }
            let received = try await downloader.keepWholeReply(head, parts: &parts, blob: blob, into: partial) { done in
                events(.progress(presentationId: id, bytesOnDisk: done))
            }
            kept.bytes.withLock { $0 = received }
            return true
        }
        defer { fetch.discard() }
        // The media files are looked up while the changed entries are fetched (neither needs the other).
        async let mediaLookups = lookUpMediaFilesResult(presentationId: id)
        let fetched: FetchedDelta
        do {
            fetched = try await fetch.run(
                link: link, installed: index,
                planned: { plan, size in
                    // Refused before a byte of an entry is fetched, as a full download is before it starts.
                    try await checkFreeSpace(needed: plan.diskBytesNeeded)
                    events(.delta(presentationId: id, name: row.name, fetching: plan.bytesToFetch, packageSize: size))
                },
                progress: { events(.progress(presentationId: id, bytesOnDisk: $0)) })
        } catch let fallback as DeltaFallback {
            logger.notice("full download: \(fallback)", metadata: ["presentation": "\(id)"])
            events(.deltaDeclined(presentationId: id, reason: fallback.description))
            return .fullDownload(alreadyReceived: kept.bytes.withLock { $0 })
        } catch let refused as PackageError {
            throw .packageRefused(presentationId: id, refused)
        } catch let error as SyncError {
            throw error
        } catch {
            if Task.isCancelled || error is CancellationError { throw .interrupted }
            let fallback = DeltaFallback.transport(String(describing: error))
            logger.notice("full download: \(fallback)", metadata: ["presentation": "\(id)"])
            events(.deltaDeclined(presentationId: id, reason: fallback.description))
            return .fullDownload(alreadyReceived: kept.bytes.withLock { $0 })
        }
        let mediaBegan = PhaseTiming.begin()
        let lookedUp = try await mediaLookups.get()
        PhaseTiming.record("media files looked up (waited for, after the fetch)", since: mediaBegan)
        let media = try await PhaseTiming.measure("media files") { () async throws(SyncError) in
            try await fetchMissingMedia(presentationId: id, packageFiles: Set(fetched.filePaths), lookedUp: lookedUp)
        }
        // The manifest, fetched and checked meanwhile; a refusal discards what was fetched.
        let manifestBegan = PhaseTiming.begin()
        let expected = try await expectation()
        PhaseTiming.record("trust: keys and manifest waited for (after the fetch)", since: manifestBegan)
        events(.installing(presentationId: id))
        let vouched = expected == nil ? [:] : fetched.vouched
        // The files the assembly places, so rule 7 lists the tree without walking it: the reused
        // files linked with their facts from the link, and every other one by name.
        var linkedFacts: [String: FileFacts] = [:]
        var placed = fetched.plan.changed.map(\.name)
        for entry in fetched.plan.reused {
            if let facts = fetched.linkFacts[entry.name] { linkedFacts[entry.name] = facts.after } else { placed.append(entry.name) }
        }
        let assembled = AssembledTree(linked: linkedFacts, placed: placed)
        let assembly = DeltaAssembly(delta: fetched)
        let directory = library.directory
        try await install(
            row: row, package: package, partial: PartialDownload(folder: paths.downloads, presentationId: id, revision: package.revision),
            media: media, warning: nil, transferred: fetched.transferred, packageSize: fetched.packageSize, how: .delta,
            expected: expected, vouched: vouched, assembled: assembled, factsAfterSwap: factsAfterSwap,
            assemble: { staging in
                let counts = try Self.assemblePlacingIndex(assembly, into: staging, directory: directory)
                return LibraryStore.AssembledFolder(files: counts.files, bytes: counts.bytes, hashed: counts.asWritten)
            })
        let cleanupBegan = PhaseTiming.begin()
        await discardDownloads(of: id, media: media)
        PhaseTiming.record("delta: work files removed", since: cleanupBegan)
        events(.installed(presentationId: id, revision: package.revision))
        let download = ResumableDownloader.Outcome(
            resumedFrom: 0, transferred: fetched.transferred, linkRenewals: 0, size: fetched.packageSize)
        var outcome = PackageOutcome(id: id, revision: package.revision, error: nil, download: download)
        outcome.transfer = .delta
        outcome.requests = fetched.requests
        outcome.connections = fetched.connections
        outcome.saved = max(0, fetched.packageSize - fetched.transferred)
        return .installed(outcome)
    }
}
