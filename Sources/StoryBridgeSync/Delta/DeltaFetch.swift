import Foundation
import NIOCore
import NIOHTTP1
import StoryBridge

/// A new package read as a delta against the installed revision: its central directory, the
/// plan, the changed entries fetched into a small zip of their own and the unchanged files linked
/// into a work folder, ready to be assembled.
struct FetchedDelta: Sendable {
    var directory: ZipDirectory
    var plan: DeltaPlan
    /// The work folder holding the unchanged files (hard links of the installed ones) and their
    /// parent folders; the assembly moves it into place and unpacks the changed entries into it.
    var linkedFolder: URL
    /// What the linking did.
    var linked: UnchangedFileLinker.Counts
    /// The linked files' facts before and after their links (docs/design/TRUST.md 2.3.1).
    var linkFacts: [String: LinkedFacts] = [:]
    /// What ``DeltaFetch/vouch`` made of the reused files, beside the fetch (empty without it).
    var vouched: [String: HashedFile] = [:]
    /// The work folder holding the changed entries unpacked (CRC checked) from their spans as
    /// fetched, once the listing passed (nil when no entry changed); the assembly moves its
    /// files into the linked folder.
    var changedFolder: URL?
    /// What the unpacking of the changed entries wrote.
    var unpacked: (files: Int, bytes: Int64) = (0, 0)
    /// The changed files with the SHA-256 of the bytes the unpacking wrote and their facts then,
    /// by name, when the fetch vouches (``DeltaFetch/vouch``): the assembly vouches for those
    /// still as written when it places them, so the tree's check does not read them back.
    var written: [String: HashedFile] = [:]
    /// The new revision's entry index (``DeltaIndex``), written ahead in the work folder; nil
    /// when it could not be written (the revision then gets none, as a full install of a zip the
    /// delta path cannot read).
    var indexFile: URL?
    /// The package's file paths, checked like `storybridge install` checks a zip's.
    var filePaths: [String]
    var requests: Int
    /// The TCP connections the requests took (one when the server keeps connections alive).
    var connections: Int
    var transferred: Int64
    var packageSize: Int64
}

/// Reads a package's central directory over `Range` requests, checks the listing with the same
/// archive checks as a full install, and fetches the changed entries while the unchanged files
/// are linked from the installed revision.
struct DeltaFetch: Sendable {
    var limits: PackageLimits
    /// Work files: `<prefix>.changes.zip`, `<prefix>.index.zipdir` and the folders `<prefix>.linked`
    /// and `<prefix>.changed` in `folder`.
    var folder: URL
    var prefix: String
    /// The installed revision's folder, which the unchanged files are linked from.
    var installed: URL
    var connectTimeout: TimeAmount = .seconds(10)
    var readTimeout: TimeAmount = .seconds(30)
    var rateLimiter: TransferRateLimiter?
    /// The ready tree of the installed revision (``ReadyTree``), taken instead of linking the
    /// installed files when it exists and checks out; nil: always link.
    var readyTree: ReadyTree?
    /// Told why a ready tree was not used (it is removed, and the files linked as without one).
    var readyTreeRejected: (@Sendable (String) -> Void)?
    /// Told the plan's reused files and their facts when linked, once they are kept, beside the
    /// fetch of the changed entries: the reused files the installed revision's verified facts
    /// vouch for (``TrustGate/vouched(reused:linked:facts:installedManifestHash:)``), which the
    /// result carries; nil: none.
    var vouch: (@Sendable (_ reused: [String], _ linked: [String: LinkedFacts], _ verified: VerifiedFacts?) async -> [String: HashedFile])?
    /// Reads the installed revision's verified facts (docs/design/TRUST.md 2.3.1) on the linking's
    /// thread, before the ready tree is checked (its files whose inodes the facts name need no
    /// `stat` of the installed side); they go to ``vouch``. Nil: none are read.
    var installedFacts: (@Sendable () -> VerifiedFacts?)?
    /// Takes a 200 answered to the first range request (``RangedBlob/wholeBlobReply``).
    var wholeBlobReply: (@Sendable (HTTPResponseHead, inout BlobHTTP.Parts) async throws -> Bool)?
    /// Central directories larger than this are not read remotely.
    static let maxDirectoryBytes: Int64 = 64 << 20

    var changesZip: URL { folder.appendingPathComponent(prefix + ".changes.zip") }
    var linkedFolder: URL { folder.appendingPathComponent(prefix + ".linked") }
    var changedFolder: URL { folder.appendingPathComponent(prefix + ".changed") }
    var indexFile: URL { folder.appendingPathComponent(prefix + ".index.zipdir") }

    /// Removes the work files, and the linked folder unless the assembly moved it into place.
    func discard() {
        unlink(changesZip.path)
        unlink(indexFile.path)
        if rmdir(linkedFolder.path) != 0, errno != ENOENT { try? FileManager.default.removeItem(at: linkedFolder) }
        if rmdir(changedFolder.path) != 0, errno != ENOENT { try? FileManager.default.removeItem(at: changedFolder) }
    }

    /// The end of every work file's name: `<id>-r<revision>.delta` then one of these (the listing
    /// zip is no longer written, checked in memory instead; one an earlier version left is swept).
    static let workFileSuffixes = [".delta.listing.zip", ".delta.changes.zip", ".delta.linked", ".delta.changed", ".delta.index.zipdir"]

    /// Removes the work files a run that was killed left in `folder`. They are never resumed (a
    /// run writes them afresh), so any that exist when a run starts, under the sync lock, are
    /// left over: a kill after the swap and before ``discard()`` leaves one that no later run of
    /// that presentation would reach, its revision being installed.
    /// Whether `folder` holds work files ``sweepWorkFiles(in:)`` would remove.
    static func hasWorkFiles(in folder: URL) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.contains { name in workFileSuffixes.contains(where: { name.hasSuffix($0) }) }
    }

    static func sweepWorkFiles(in folder: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where workFileSuffixes.contains(where: { name.hasSuffix($0) }) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// Fetches the delta of the package at `link` against `installed` (the installed revision's
    /// index) and links the unchanged files meanwhile. Throws ``DeltaFallback`` when the full
    /// download is the way (also when an installed file is not what the index says),
    /// `PackageError` when the archive is refused, and what `planned` throws (told the plan and
    /// the package size once the listing was parsed and planned, before any entry is fetched) to
    /// refuse the update. Whatever it throws, all it started has ended, and the caller's
    /// ``discard()`` removes what it made.
    /// All its range requests go on one kept-alive connection (``BlobConnection``).
    func run(
        link: String, installed: DeltaIndex, planned: (DeltaPlan, Int64) async throws -> Void, progress: (Int64) -> Void
    ) async throws -> FetchedDelta {
        let target = try RangedBlob.target(link)
        // The installed revision's files are linked while the tail and the entries are requested:
        // the index alone says what they are. The plan then keeps those it reuses. The linking
        // starts first, as the longest of the branches; it makes the work folder.
        let linkedAhead = Task { await linkAhead(installed) }
        do {
            return try await BlobHTTP.withConnection(target, connectTimeout: connectTimeout, readTimeout: readTimeout) { connection in
                var blob = RangedBlob(connection: connection)
                blob.rateLimiter = rateLimiter
                blob.wholeBlobReply = wholeBlobReply
                return try await run(blob: &blob, index: installed, linkedAhead: linkedAhead, planned: planned, progress: progress)
            }
        } catch {
            _ = await linkedAhead.value
            throw error
        }
    }

    private func run(
        blob: inout RangedBlob, index: DeltaIndex, linkedAhead: Task<Result<UnchangedFileLinker.LinkedAhead, any Error>, Never>,
        planned: (DeltaPlan, Int64) async throws -> Void, progress: (Int64) -> Void
    ) async throws -> FetchedDelta {
        // Phases measured with begin/record: `blob` is not sendable, so no closure carries it.
        var phaseBegan = PhaseTiming.begin()
        let (tail, tailStart) = try await blob.tail(ZipDirectory.maxTailSize)
        PhaseTiming.record("delta: tail request (end record)", since: phaseBegan)
        let location = try ZipDirectory.locate(tail: tail, tailStart: tailStart)
        guard location.entryCount <= limits.maxEntries else { throw PackageError.tooManyEntries(limit: limits.maxEntries) }
        guard location.size <= Self.maxDirectoryBytes else { throw DeltaFallback.unreadableArchive("a central directory over 64 MB") }
        var listing: Data
        if location.offset >= tailStart {
            let from = tail.startIndex + Int(location.offset - tailStart)
            listing = tail.subdata(in: from..<(from + Int(location.size)))
        } else {
            var head = Data()
            phaseBegan = PhaseTiming.begin()
            try await blob.fetch(location.offset..<tailStart) { head.append(contentsOf: $0.readableBytesView) }
            PhaseTiming.record("delta: central directory request", since: phaseBegan)
            listing = (head + tail).prefix(Int(location.size))
            listing = Data(listing)
        }
        let planBegan = PhaseTiming.begin()
        let directory = try ZipDirectory.parse(listing, location: location)
        let packageSize = blob.length ?? 0
        let plan = DeltaPlan(directory: directory, installed: index)
        PhaseTiming.record("delta: central directory parsed and planned", since: planBegan)
        guard plan.bytesToFetch * 2 <= packageSize else {
            throw DeltaFallback.mostBytesChanged(changed: plan.bytesToFetch, total: packageSize)
        }
        // Refused (too little disk space) before a byte of an entry is fetched, as a full download is before it starts.
        try await planned(plan, packageSize)
        // Three things at once, none needing another: the whole listing goes through the checks
        // of a full install (names, types, duplicates, entry count, declared sizes, index.html)
        // on the blocking pool; the files linked ahead are trimmed to the plan's unchanged ones
        // on another of its threads; the changed entries are fetched. Nothing fetched is unpacked
        // and nothing linked is moved into the library before the listing passed. The linking
        // touches only names the installed index holds (an installed revision's checked names),
        // never a name of the unchecked listing. A refused listing wins over a failed fetch, which
        // wins over a failed linking; whichever fails, both others have ended when this throws.
        let wholeListing = listing
        async let checkedPaths = checkListing(wholeListing, location: location)
        async let linked = keepUnchanged(plan.reused, linkedAhead: linkedAhead)
        var fetchedChanges: Result<URL?, any Error> = .success(nil)
        if !plan.changed.isEmpty {
            phaseBegan = PhaseTiming.begin()
            do {
                fetchedChanges = .success(try await fetchChanges(plan, blob: &blob, progress: progress))
            } catch {
                fetchedChanges = .failure(error)
            }
            PhaseTiming.record("delta: changed entries fetched (\(plan.ranges.count) ranges)", since: phaseBegan)
        }
        let filePaths = try await checkedPaths
        let changes = try fetchedChanges.get()
        // The listing passed and the changed entries are here: they are unpacked, with the checks
        // of a full install, into a work folder of their own, and the new revision's entry index
        // is written, while the linking (the longest branch) ends; a failed unpacking wins over a
        // failed linking, and all have ended when this throws.
        async let indexWritten = writeIndex(directory)
        let unpackedChanges = try await unpackChanges(changes, hashing: vouch != nil)
        let (linkedCounts, vouched) = try await linked
        var fetched = FetchedDelta(
            directory: directory, plan: plan, linkedFolder: linkedFolder, linked: linkedCounts,
            changedFolder: changes == nil ? nil : changedFolder, unpacked: (unpackedChanges.files, unpackedChanges.bytes),
            written: unpackedChanges.hashed, filePaths: filePaths,
            requests: blob.requests, connections: blob.connection.connectionsOpened, transferred: blob.bytesReceived,
            packageSize: packageSize)
        fetched.indexFile = await indexWritten
        fetched.vouched = vouched
        if case .success(let ahead) = await linkedAhead.value { fetched.linkFacts = ahead.facts }
        return fetched
    }

    /// Writes the new revision's entry index to the work folder (placed by the assembly); nil
    /// when that fails.
    private func writeIndex(_ directory: ZipDirectory) async -> URL? {
        let began = PhaseTiming.begin()
        defer { PhaseTiming.record("delta: entry index written (while the linking ends)", since: began) }
        return await BlockingIO.run { [indexFile] () -> URL? in
            (try? DeltaIndex.write(directory, to: indexFile)) == nil ? nil : indexFile
        }
    }

    /// Unpacks the changes zip (nil: nothing changed) into the changed folder (one a killed run
    /// left is removed first) with the checks of a full install: sizes, compression ratio, the
    /// CRC-32 of every entry; a file is never written over one that exists (`hashing`: each
    /// file's SHA-256 taken as it is written). On an error the folder is removed.
    private func unpackChanges(_ changes: URL?, hashing: Bool) async throws -> PackageExtractor.Result {
        guard let changes else { return PackageExtractor.Result(folder: changedFolder, files: 0, bytes: 0) }
        let unpackBegan = PhaseTiming.begin()
        defer { PhaseTiming.record("delta: changed entries unpacked (CRC checked; while the linking ends)", since: unpackBegan) }
        return try await BlockingIO.run { [limits, changedFolder] () throws -> PackageExtractor.Result in
            if FileManager.default.fileExists(atPath: changedFolder.path) { try FileManager.default.removeItem(at: changedFolder) }
            return try PackageExtractor(limits: limits).extract(
                zip: changes, to: changedFolder, requiresStartSlide: false, hashing: hashing)
        }
    }

    /// Makes the linked folder (one a killed run left is removed first): the installed
    /// revision's ready tree renamed to it when there is one that checks out, else an empty
    /// folder into which the installed revision's files that are what `index` says are linked.
    private func linkAhead(_ index: DeltaIndex) async -> Result<UnchangedFileLinker.LinkedAhead, any Error> {
        // The installed revision's verified facts, read once on the linking's thread: the ready
        // tree's check and the vouching use them.
        let installedFacts = self.installedFacts
        let verified = await BlockingIO.run { () -> VerifiedFacts? in
            installedFacts.flatMap { read in
                PhaseTiming.measure("trust: installed revision's verified facts read (before the ready tree's check)") { read() }
            }
        }
        if let readyTree {
            let treeBegan = PhaseTiming.begin()
            let taken = await BlockingIO.run { [folder, linkedFolder, installed] () -> ReadyTree.Taken in
                try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                if FileManager.default.fileExists(atPath: linkedFolder.path) { try? FileManager.default.removeItem(at: linkedFolder) }
                return readyTree.take(into: linkedFolder, index: index, installed: installed, verified: verified)
            }
            PhaseTiming.record("delta: ready tree taken and checked (while the tail and the entries are requested)", since: treeBegan)
            switch taken {
            case .taken(var linked):
                linked.verified = verified
                return .success(linked)
            case .absent: break
            case .rejected(let reason): readyTreeRejected?(reason)
            }
        }
        let linksBegan = PhaseTiming.begin()
        defer { PhaseTiming.record("delta: installed files linked (while the tail and the entries are requested)", since: linksBegan) }
        let linker = UnchangedFileLinker(installed: installed, destination: linkedFolder)
        return await BlockingIO.run { [folder, linkedFolder] () -> Result<UnchangedFileLinker.LinkedAhead, any Error> in
            Result {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                if mkdir(linkedFolder.path, 0o755) != 0 {
                    guard errno == EEXIST else {
                        throw PackageError.writeFailed(path: linkedFolder.path, reason: String(cString: strerror(errno)))
                    }
                    try FileManager.default.removeItem(at: linkedFolder)
                    try FileManager.default.createDirectory(at: linkedFolder, withIntermediateDirectories: false)
                }
                var linked = try linker.linkAhead(index)
                linked.verified = verified
                return linked
            }
        }
    }

    /// Keeps of the files linked ahead the plan's unchanged ones (``UnchangedFileLinker/keep(_:of:)``),
    /// then has them vouched for (``vouch``).
    private func keepUnchanged(
        _ reused: [ZipDirectoryEntry], linkedAhead: Task<Result<UnchangedFileLinker.LinkedAhead, any Error>, Never>
    ) async throws -> (UnchangedFileLinker.Counts, [String: HashedFile]) {
        let linked = try await linkedAhead.value.get()
        let keepBegan = PhaseTiming.begin()
        let linker = UnchangedFileLinker(installed: installed, destination: linkedFolder)
        let counts = try await BlockingIO.run { () throws in try linker.keep(reused, of: linked) }
        PhaseTiming.record("delta: links of changed and removed files removed", since: keepBegan)
        guard let vouch else { return (counts, [:]) }
        return (counts, await vouch(reused.map(\.name), linked.facts, linked.verified))
    }

    /// The file paths of `listing` (the package's central directory) after the checks of a full
    /// install, run by the full install's reader on a zip of the listing alone, in memory.
    private func checkListing(_ listing: Data, location: ZipDirectory.Location) async throws -> [String] {
        let checksBegan = PhaseTiming.begin()
        defer { PhaseTiming.record("delta: listing checked like a full install's", since: checksBegan) }
        let endRecord = ZipDirectory.endRecord(count: location.entryCount, size: location.size, offset: 0)
        return try await BlockingIO.run { [limits, prefix] () throws -> [String] in
            try PackageExtractor(limits: limits).filePaths(zipBytes: listing + endRecord, name: "\(prefix) listing")
        }
    }

    /// Writes each range's bytes to the changes zip as they arrive, then a central directory of
    /// the changed entries pointing at their new places; the file is written on the blocking pool.
    private func fetchChanges(_ plan: DeltaPlan, blob: inout RangedBlob, progress: (Int64) -> Void) async throws -> URL {
        let changesZip = self.changesZip
        let output = try await BlockingIO.run { [folder] () throws -> FileHandle in
            // Made by the linking already, unless that failed at once.
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: changesZip.path, contents: nil) else {
                throw DeltaFallback.transport("cannot create \(changesZip.path)")
            }
            return try FileHandle(forWritingTo: changesZip)
        }
        defer { try? output.close() }
        var written: Int64 = 0
        var placed: [(range: Range<Int64>, at: Int64)] = []
        for range in plan.ranges {
            placed.append((range, written))
            try await blob.fetch(range) { chunk in
                try await BlockingIO.run { () throws in try chunk.withUnsafeReadableBytes { try output.write(contentsOf: $0) } }
                written += Int64(chunk.readableBytes)
                progress(written)
            }
        }
        var records = Data()
        for entry in plan.changed {
            guard let place = placed.first(where: { $0.range.contains(entry.localHeaderOffset) }) else {
                throw DeltaFallback.unreadableArchive("an entry outside the fetched ranges")
            }
            records.append(entry.record(movedTo: place.at + entry.localHeaderOffset - place.range.lowerBound))
        }
        let directory = records + ZipDirectory.endRecord(count: plan.changed.count, size: Int64(records.count), offset: written)
        try await BlockingIO.run { () throws in try output.write(contentsOf: directory) }
        // Not fsynced: the file is unpacked at once and deleted; after a crash the next run
        // sweeps it and fetches the delta again, and a torn file fails its entries' CRC-32.
        return changesZip
    }
}
