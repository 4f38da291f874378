import Foundation
import StoryBridge
import Synchronization

/// The verified facts of a revision an install has just checked (docs/design/TRUST.md 2.3.1),
/// held from the tree's check until the swap has committed and then written, outside the time a
/// delta update makes the kiosk wait for its new revision.
///
/// Written after the swap, a crash in between only loses them: the next delta update then hashes
/// every reused file, as it does for a revision without facts. Handed from the install's blocking
/// thread (``TrustGate/verifier(_:presentationId:presentationRevision:packageId:packageRevision:vouched:factsAfterSwap:)``)
/// to the sync task that saves them: one value, put once and taken once.
package final class VerifiedFactsAfterSwap: Sendable {
    private let held = Mutex<(folder: String, facts: VerifiedFacts)?>(nil)

    package init() {}

    /// Keeps `facts` of the revision assembled in folder `folder` (its name once served).
    package func hold(_ facts: VerifiedFacts, forFolder folder: String) {
        held.withLock { $0 = (folder, facts) }
    }

    /// Writes the held facts into `directory`, once; nothing when none are held (an unsigned or
    /// refused install). A failure to write is not an error: the next delta hashes more.
    package func save(in directory: DataDirectory) {
        guard
            let (folder, facts) = held.withLock({ value in
                defer { value = nil }; return value
            })
        else { return }
        PhaseTiming.measure("trust: verified facts written (after the swap)") {
            try? facts.save(forFolder: folder, in: directory)
        }
    }
}
