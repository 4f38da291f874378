import Foundation
import GRDB
import StoryBridge

extension ContentSync {
    /// Re-signed manifests for presentations already at the offered revision (docs/design/TRUST.md
    /// 2.6): each whose stored signed manifest has less than half its lifetime left asks the
    /// service for its package (for the manifest link) and the manifest; a valid one of the same
    /// revisions and files, made later, replaces the stored one in its `packageTrust` row. No file
    /// is fetched or touched. A refused or unreachable one leaves the stored manifest and is
    /// reported as a warning: the run does not fail, the revision stays served.
    func refreshManifests(
        of rows: [SyncedPresentation], now: Date = Date()
    ) async -> (replaced: [Int], warnings: [(id: Int, warning: String)]) {
        guard let trust, !rows.isEmpty else { return ([], []) }
        let database = library.database
        let ids = Set(rows.map(\.id))
        let stored = await BlockingIO.run { try? database.pool.read { db in try InstalledTrust.served(db) } } ?? [:]
        let due = stored.filter { ids.contains($0.key) && $0.value.wantsRefresh(at: now) }
        guard !due.isEmpty else { return ([], []) }
        let began = PhaseTiming.begin()
        defer { PhaseTiming.record("trust: re-signed manifests asked for", since: began) }
        var replaced: [Int] = []
        var warnings: [(id: Int, warning: String)] = []
        for (id, installed) in due.sorted(by: { $0.key < $1.key }) {
            do throws(SyncError) {
                guard let package = try await api.contentPackage(presentationId: id),
                    package.id == installed.packageId, package.revision == installed.packageRevision,
                    let record = try await trust.refreshed(installed: installed, package: package)
                else { continue }
                let written = await BlockingIO.run {
                    Result {
                        try database.pool.write { db in try InstalledTrust.replaceManifest(db, folder: installed.folder, with: record) }
                    }
                }
                do {
                    try written.get()
                } catch {
                    throw SyncCatalog.storageError(error)
                }
                await carryVerifiedFacts(of: installed.folder, from: installed.manifestHash, to: record.manifestHash)
                replaced.append(id)
                logger.info(
                    "re-signed manifest stored",
                    metadata: ["presentation": "\(id)", "expires": "\(record.body.expires.map(TrustTime.format) ?? "never")"])
            } catch {
                let warning = "the re-signed manifest was not taken (\(error.description)); the stored one stays"
                logger.warning("\(warning)", metadata: ["presentation": "\(id)"])
                warnings.append((id, warning))
            }
        }
        return (replaced, warnings)
    }

    /// The verified facts of `folder`, taken against the manifest whose hash was `old`, now name
    /// its re-signed manifest `new` (the same files and hashes, ``TrustGate/refreshed(installed:package:)``
    /// checked), so the next delta still vouches for the reused files instead of hashing them all.
    /// Written after the row: a crash in between leaves facts of the old hash, which vouch for
    /// nothing (the next delta hashes the reused files once). Facts of another manifest are left.
    private func carryVerifiedFacts(of folder: String, from old: String, to new: String) async {
        let directory = library.directory
        await BlockingIO.run {
            guard var facts = VerifiedFacts.load(forFolder: folder, in: directory), facts.manifestHash == old else { return }
            facts.manifestHash = new
            try? facts.save(forFolder: folder, in: directory)
        }
    }
}
