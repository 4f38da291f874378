import Foundation

/// When presentations gone from the service leave this machine.
///
/// A presentation the service stops offering is first **withdrawn**: off the launcher, its files
/// kept. It is removed when it is still gone ``grace`` after it was first seen gone, or at once
/// with ``prune``. A run that would withdraw every synced presentation, or more than half of
/// them, withdraws none unless ``prune`` is set: a transient empty list (`[]` with 200) or a user
/// moved out of a client must not wipe a kiosk's library in one run.
package struct RemovalPolicy: Sendable, Hashable {
    /// How long a withdrawn presentation stays on disk before it is removed.
    package var grace: TimeInterval
    /// Withdraw and remove whatever is gone now, without the grace period or the guard.
    package var prune: Bool

    package init(grace: TimeInterval = 24 * 3600, prune: Bool = false) {
        self.grace = grace
        self.prune = prune
    }
}

/// What a metadata sync withdraws and removes, decided from the catalog before the run and the
/// ids the service still offers.
struct RemovalPlan: Sendable {
    /// Presentations to mark withdrawn now.
    var withdraw: [Int] = []
    /// Presentations to remove with their files now.
    var remove: [Int] = []
    /// Why presentations gone from the service were not withdrawn, if they were not.
    var heldBack: String?

    init(existing: [Int: SyncedPresentation], listedIds: Set<Int>, policy: RemovalPolicy, now: Date) {
        let gone = existing.keys.filter { !listedIds.contains($0) }.sorted()
        let active = existing.values.filter { $0.state != .withdrawn }.count
        let newlyGone = gone.filter { existing[$0]?.state != .withdrawn }
        let alreadyWithdrawn = gone.filter { existing[$0]?.state == .withdrawn }
        if policy.prune {
            remove = gone
            return
        }
        remove = alreadyWithdrawn.filter { id in
            guard let since = existing[id]?.withdrawnAt else { return true }
            return now.timeIntervalSince(since) >= policy.grace
        }
        guard !newlyGone.isEmpty else { return }
        // Every synced presentation, or more than half of them.
        if newlyGone.count * 2 > active {
            let ids = newlyGone.map(String.init).joined(separator: ", ")
            heldBack =
                "the service no longer offers \(newlyGone.count) of the \(active) synced presentations (\(ids)); "
                + "none was withdrawn, since a transient empty list or a user moved out of a client looks the same: "
                + "run storybridge sync --prune to withdraw and remove them"
            return
        }
        withdraw = newlyGone
    }
}
