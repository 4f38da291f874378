import Foundation
import Synchronization

/// What the host that owns a database's audit log sets up for it (one per ``StoryBridgeDatabase``):
/// the host key checkpoints are signed with, how many entries apart they are, and the head file
/// kept outside the database (docs/design/TRUST.md 4.5, 5.1).
///
/// Until ``configure(_:)`` runs (`serve` does before it listens), entries are appended without
/// checkpoints or head file: the other processes that write the same database (`sync`,
/// `storybridge test`) leave both to the host, whose next periodic checkpoint covers their entries.
package final class AuditLogState: Sendable {
    /// The host's settings.
    package struct Settings: Sendable {
        /// The key checkpoints are signed with.
        package var key: HostKey
        /// A checkpoint is made after every entry whose position is a multiple of this (at least 2).
        package var checkpointEvery: Int
        /// The head file, written after every commit of an entry.
        package var headFile: AuditHeadFile?

        package init(key: HostKey, checkpointEvery: Int = AuditLogState.defaultCheckpointEvery, headFile: AuditHeadFile? = nil) {
            self.key = key
            self.checkpointEvery = max(2, checkpointEvery)
            self.headFile = headFile
        }
    }

    /// Entries between two checkpoints unless configured otherwise.
    package static let defaultCheckpointEvery = 1_000

    private struct Held: Sendable {
        var settings: Settings?
        /// The newest committed checkpoint's sequence (the head file carries it).
        var checkpointSequence = 0
        /// The last checkpoint of the damaged database this one continues, when it could be read.
        var inherited: AuditCheckpointLink?
    }

    private let held = Mutex(Held())

    package init() {}

    /// Signs checkpoints with `settings.key` from now on, numbered after `checkpointSequence`, and
    /// writes the head file. `inherited` is the last checkpoint of the damaged database this one
    /// continues (5.3), which the first checkpoint here names as its previous one.
    package func configure(_ settings: Settings, checkpointSequence: Int, inherited: AuditCheckpointLink? = nil) {
        held.withLock {
            $0.settings = settings
            $0.checkpointSequence = checkpointSequence
            $0.inherited = inherited
        }
    }

    /// The last checkpoint of the damaged database this one continues.
    var inheritedCheckpoint: AuditCheckpointLink? { held.withLock { $0.inherited } }

    /// The settings, if configured.
    package var settings: Settings? { held.withLock { $0.settings } }

    /// The newest committed checkpoint's sequence.
    package var checkpointSequence: Int { held.withLock { $0.checkpointSequence } }

    /// After the commit of an entry at `head`: the head file's slot, synced when `sync` (a
    /// checkpoint, a clean stop).
    func committed(_ head: AuditHead, checkpoint: Int?, sync: Bool) {
        let (file, sequence) = held.withLock { held -> (AuditHeadFile?, Int) in
            if let checkpoint { held.checkpointSequence = max(held.checkpointSequence, checkpoint) }
            return (held.settings?.headFile, held.checkpointSequence)
        }
        guard let file else { return }
        var head = head
        head.checkpointSequence = sequence
        file.write(head)
        if sync { file.sync() }
    }
}

/// A checkpoint as the next one names it: sequence, position and hash.
package struct AuditCheckpointLink: Sendable, Hashable {
    package var sequence: Int
    package var position: Int
    package var hash: Data

    package init(sequence: Int, position: Int, hash: Data) {
        self.sequence = sequence
        self.position = position
        self.hash = hash
    }
}
