import Foundation
import StoryBridge
import Synchronization

/// The verified facts of a revision an install has just checked (docs/design/TRUST.md 2.3.1),
/// held from the tree's check until the swap has committed and then written, outside the time a
/// delta update makes the kiosk wait for its new revision.
///
/// Written after the swap, a crash in between only loses them: the next delta update then hashes
/// every reused file, as it does for a revision without facts. Handed from the install's blocking
/// thread (``TrustGate/verifier(_:presentationId:presentationRevision:packageId:packageRevision:vouched:assembled:factsAfterSwap:)``)
/// to the sync task that saves them: one value, put once and taken once.
package final class VerifiedFactsAfterSwap: Sendable {
    /// What the tree's check found, as it found it: the facts are put together when saved.
    private struct Held: Sendable {
        var folder: String
        var manifestHash: String
        var listing: [(path: String, facts: FileFacts)]
        var files: [ManifestFile]
    }

    private let held = Mutex<Held?>(nil)

    package init() {}

    /// Keeps the facts of the revision assembled in folder `folder` (its name once served): the
    /// tree's `listing` with each file's facts, and its `files` with the hashes it was checked
    /// against (`manifestHash`'s). A listed file without a hash gets no facts.
    package func hold(
        listing: [(path: String, facts: FileFacts)], files: [ManifestFile], manifestHash: String, forFolder folder: String
    ) {
        held.withLock { $0 = Held(folder: folder, manifestHash: manifestHash, listing: listing, files: files) }
    }

    /// The held facts, taken (nil when none are held).
    func take() -> (folder: String, facts: VerifiedFacts)? {
        guard
            let held = held.withLock({ value in
                defer { value = nil }; return value
            })
        else { return nil }
        let hashes = Dictionary(held.files.map { ($0.path, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        var verified: [String: VerifiedFile] = [:]
        verified.reserveCapacity(held.listing.count)
        for (path, facts) in held.listing {
            if let sha256 = hashes[path] { verified[path] = VerifiedFile(facts: facts, sha256: sha256) }
        }
        return (held.folder, VerifiedFacts(manifestHash: held.manifestHash, files: verified))
    }

    /// Writes the held facts into `directory`, once; nothing when none are held (an unsigned or
    /// refused install). A failure to write is not an error: the next delta hashes more.
    package func save(in directory: DataDirectory) {
        let began = PhaseTiming.begin()
        guard let (folder, facts) = take() else { return }
        try? facts.save(forFolder: folder, in: directory)
        PhaseTiming.record("trust: verified facts written (after the swap)", since: began)
    }
}
