import ArgumentParser
import Foundation
import Logging
import StoryBridge

/// `serve`'s flags for the audit log's checkpoints (docs/design/TRUST.md 4.5); each wins over the
/// config file's `audit` section (``AuditSettings``).
struct AuditOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Sign a checkpoint of the audit log after every N entries (config audit.checkpointEvery; 1000 by default; at least 2).",
            discussion: "Each is signed with the host key and uploaded as story.content.audit.checkpoint.",
            valueName: "N"))
    var auditCheckpointEvery: Int?

    @Option(
        help: ArgumentHelp(
            "Also sign one this long after the last when entries were added meanwhile (config audit.checkpointInterval; 5m by default; none turns it off).",
            valueName: "TIME"))
    var auditCheckpointInterval: TimeLimit?

    func validate() throws {
        if let every = auditCheckpointEvery, every < 2 { throw ValidationError("--audit-checkpoint-every must be 2 or more") }
    }

    /// The flags over `settings` (the config file's `audit` section), checked.
    func resolve(_ settings: AuditSettings) throws(ValidationError) -> Resolved {
        let every = auditCheckpointEvery ?? settings.checkpointEvery ?? AuditLogState.defaultCheckpointEvery
        guard every >= 2 else { throw ValidationError("the config's audit.checkpointEvery must be 2 or more (it is \(every))") }
        let interval: Duration? =
            switch auditCheckpointInterval ?? settings.checkpointInterval ?? .after(.seconds(300)) {
            case .after(let duration): duration > .zero ? duration : nil
            case .none: nil
            }
        return Resolved(checkpointEvery: every, interval: interval)
    }

    /// The checkpoints as serve makes them.
    struct Resolved {
        /// A checkpoint after every this many entries.
        var checkpointEvery: Int
        /// The interval between time-based checkpoints; `nil`: none.
        var interval: Duration?

        /// The log's start-up checks on `database` (5.2, 5.3); what they found is logged, and said
        /// on standard error when entries were lost or a damaged database's chain is continued.
        func start(
            _ database: StoryBridgeDatabase, key: HostKey, movedAside: MovedAsideDatabase?, logger: Logger
        ) async throws(CommandFailure) -> AuditStart.Report {
            do {
                let report = try await AuditStart.open(
                    database, key: key, checkpointEvery: checkpointEvery, movedAside: movedAside, logger: logger)
                if let gap = report.gap { Terminal.warn("warning: audit log: \(gap) (recorded as chain.gap; see audit verify)") }
                if let continued = report.continued {
                    Terminal.warn("warning: audit log: the chain continues from the damaged database \(continued)")
                }
                return report
            } catch {
                throw CommandFailure("cannot check the audit log of \(database.file.path)", error, status: CommandFailure.storage)
            }
        }
    }
}
