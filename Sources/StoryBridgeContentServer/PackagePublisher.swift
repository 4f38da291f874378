import Crypto
import Foundation
import Logging
import StoryBridge

/// Builds each presentation's package (a zip of its installed folder) in the background, one at a
/// time, and keeps the published packages in `content-server/packages/` in the data folder with
/// a registry (`registry.json`) of their ids and revisions, across restarts.
///
/// A request never waits for a build: it asks ``availability(of:)``, which answers at once (and
/// queues a build when the presentation's current revision has none). A build writes a temporary
/// file, hashes it and renames it into place; then the registry is written (atomically) and the
/// previous revision's zip deleted, so a crash never leaves a package that looks complete and is
/// not. With `leavesOutMediaFiles` the packages leave out the presentation's media files (they are
/// served on their own).
actor PackagePublisher {
    let folder: URL
    nonisolated let leavesOutMediaFiles: Bool
    /// Signs a manifest of each package built (when the server signs).
    nonisolated let manifests: ManifestPublisher?
    private let logger: Logger
    private let onProgress: @Sendable (PackageBuildProgress) -> Void
    private var registry: Registry
    /// Presentation id → the presentation revision whose build failed.
    private var failures: [Int: Int] = [:]
    private var queue: [Job] = []
    private var running: Job?
    private var worker: Task<Void, Never>?
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var finished = 0

    /// What the registry file holds.
    struct Registry: Codable, Sendable {
        /// The id the next new package gets.
        var nextPackageId = 1
        /// The published package of each presentation, by presentation id.
        var packages: [Int: PublishedPackage] = [:]
    }

    private struct Job: Sendable {
        var presentation: Presentation
        /// A republish: build even though the current revision has a package.
        var republish: Bool
        var done: CheckedContinuation<PublishedPackage?, Never>?
    }

    init(
        folder: URL, leavesOutMediaFiles: Bool = false, manifests: ManifestPublisher? = nil, logger: Logger,
        onProgress: @escaping @Sendable (PackageBuildProgress) -> Void = { _ in }
    ) {
        self.folder = folder
        self.leavesOutMediaFiles = leavesOutMediaFiles
        self.manifests = manifests
        self.logger = logger
        self.onProgress = onProgress
        registry = Self.load(folder: folder)
    }

    private var registryFile: URL { folder.appendingPathComponent("registry.json") }

    /// Whether the package of `presentation`'s current revision can be served; queues its build
    /// when it has none yet. Never waits for a build.
    func availability(of presentation: Presentation) -> PackageAvailability {
        if let published = registry.packages[presentation.id], published.presentationRevision == presentation.revision,
            FileManager.default.fileExists(atPath: file(of: published).path), hasManifest(published)
        {
            return .ready(published)
        }
        if failures[presentation.id] == presentation.revision { return .failed }
        enqueue(presentation, republish: false)
        return .building
    }

    /// Whether `package` has its manifest (signed, or awaiting an offline signature), or the
    /// server signs nothing. A package built before `keys init` gets one by a build that reuses the zip.
    private nonisolated func hasManifest(_ package: PublishedPackage) -> Bool {
        guard let manifests, manifests.signs else { return true }
        let fileManager = FileManager.default
        return fileManager.fileExists(atPath: manifests.manifestFile(packageId: package.id, revision: package.revision).path)
            || fileManager.fileExists(atPath: manifests.unsignedFile(packageId: package.id, revision: package.revision).path)
    }

    /// Signs `package`'s manifest (when the server signs); false, logged, when that failed.
    private func publishManifest(_ package: PublishedPackage, of presentation: Presentation) async -> Bool {
        guard let manifests else { return true }
        do {
            try await manifests.publish(package, presentation: presentation)
            return true
        } catch {
            logger.error("cannot make the manifest of package \(package.id) revision \(package.revision): \(error)")
            return false
        }
    }

    /// The published package whose id is `packageId`, if any.
    func package(id packageId: Int) -> PublishedPackage? {
        registry.packages.values.first { $0.id == packageId }
    }

    /// Queues a build for every presentation whose current revision has no package.
    func publishMissing(_ presentations: [Presentation]) {
        for presentation in presentations { _ = availability(of: presentation) }
    }

    /// Builds `presentation`'s package again: a new package revision under the same presentation
    /// revision. Waits for the build; `nil` when it failed.
    func republish(_ presentation: Presentation) async -> PublishedPackage? {
        await withCheckedContinuation { continuation in
            queue.append(Job(presentation: presentation, republish: true, done: continuation))
            startWorker()
        }
    }

    /// Returns once no build is queued or running.
    func waitUntilIdle() async {
        if running == nil, queue.isEmpty { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    /// The zip of a published package.
    nonisolated func file(of package: PublishedPackage) -> URL {
        folder.appendingPathComponent(package.fileName)
    }

    private func enqueue(_ presentation: Presentation, republish: Bool) {
        let waiting = (running.map { [$0] } ?? []) + queue
        if waiting.contains(where: { $0.presentation.id == presentation.id && $0.presentation.revision == presentation.revision }) {
            return
        }
        queue.append(Job(presentation: presentation, republish: republish, done: nil))
        startWorker()
    }

    private func startWorker() {
        guard worker == nil else { return }
        worker = Task { await self.drain() }
    }

    private func drain() async {
        while !queue.isEmpty {
            let job = queue.removeFirst()
            running = job
            let result = await build(job)
            running = nil
            finished += 1
            onProgress(
                PackageBuildProgress(
                    finished: finished, total: finished + queue.count, presentationId: job.presentation.id, failed: result == nil))
            job.done?.resume(returning: result)
        }
        worker = nil
        let waiters = idleWaiters
        idleWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    private func build(_ job: Job) async -> PublishedPackage? {
        let presentation = job.presentation
        let previous = registry.packages[presentation.id]
        if !job.republish, let previous, previous.presentationRevision == presentation.revision,
            FileManager.default.fileExists(atPath: file(of: previous).path)
        {
            if hasManifest(previous) { return previous }
            guard await publishManifest(previous, of: presentation) else {
                failures[presentation.id] = presentation.revision
                return nil
            }
            return previous
        }
        let packageId = previous?.id ?? registry.nextPackageId
        let revision = (previous?.revision ?? 0) + 1
        let leftOut = leavesOutMediaFiles ? Set(presentation.mediaFiles.map { "mediafiles/\($0.fileName)" }) : []
        let destination = folder.appendingPathComponent("\(packageId)-r\(revision).zip")
        let started = ContinuousClock.now
        let built: Result<(Int64, String), any Error> = await Self.runOffActor { [folder] in
            try Self.writeZip(source: presentation.root, leavingOut: leftOut, folder: folder, destination: destination)
        }
        switch built {
        case .failure(let error):
            failures[presentation.id] = presentation.revision
            logger.error(
                "cannot build the package of presentation \(presentation.id) from \(presentation.root.path): \(error)")
            return nil
        case .success(let (size, sha256)):
            let published = PublishedPackage(
                id: packageId, revision: revision, presentationId: presentation.id, presentationRevision: presentation.revision,
                size: size, sha256: sha256, publishedAt: Date())
            // The manifest before the registry: a package is never served without the manifest its answer links.
            guard await publishManifest(published, of: presentation) else {
                failures[presentation.id] = presentation.revision
                try? FileManager.default.removeItem(at: destination)
                return nil
            }
            registry.packages[presentation.id] = published
            registry.nextPackageId = max(registry.nextPackageId, packageId + 1)
            failures[presentation.id] = nil
            save()
            if let previous, previous.fileName != published.fileName { try? FileManager.default.removeItem(at: file(of: previous)) }
            logger.info(
                "built package \(packageId) revision \(revision) of presentation \(presentation.id) revision \(presentation.revision): \(size) bytes in \(ContinuousClock.now - started)"
            )
            return published
        }
    }

    private func save() {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            try encoder.encode(registry).write(to: registryFile, options: .atomic)
        } catch {
            logger.error("cannot write the package registry \(registryFile.path): \(error)")
        }
    }

    /// Reads the registry and removes what it does not name (temporary files of an interrupted
    /// build, zips of revisions replaced, the layout of earlier versions).
    private static func load(folder: URL) -> Registry {
        let fileManager = FileManager.default
        try? fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
        let data = try? Data(contentsOf: folder.appendingPathComponent("registry.json"))
        let registry = data.flatMap { try? JSONDecoder().decode(Registry.self, from: $0) } ?? Registry()
        let kept = Set(registry.packages.values.map(\.fileName) + ["registry.json"])
        for entry in (try? fileManager.contentsOfDirectory(atPath: folder.path)) ?? [] where !kept.contains(entry) {
            try? fileManager.removeItem(at: folder.appendingPathComponent(entry))
        }
        return registry
    }

    /// Runs blocking file work on a thread of its own, not on the cooperative pool.
    private static func runOffActor<T: Sendable>(
        _ work: @escaping @Sendable () throws -> T
    ) async -> Result<T, any Error> {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: Result(catching: work)) }
        }
    }

    /// Zips `source` into `destination` through a temporary file; answers the size and SHA-256.
    private static func writeZip(
        source: URL, leavingOut: Set<String>, folder: URL, destination: URL
    ) throws -> (Int64, String) {
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent(".\(destination.lastPathComponent)-\(UUID().uuidString).part")
        defer { try? fileManager.removeItem(at: temporary) }
        try PackageZipWriter.write(folder: source, to: temporary, leavingOut: leavingOut)
        let hash = try sha256(of: temporary)
        guard rename(temporary.path, destination.path) == 0 else {
            throw PackageZipError(description: "cannot move the package into \(folder.path)")
        }
        let size = ((try fileManager.attributesOfItem(atPath: destination.path))[.size] as? NSNumber)?.int64Value ?? 0
        return (size, hash)
    }

    private static func sha256(of file: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
