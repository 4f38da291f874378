import Foundation

/// The config file's `audit` section: the audit log's signed checkpoints (docs/design/TRUST.md
/// 4.5), the defaults of serve's `--audit-checkpoint-every` and `--audit-checkpoint-interval`.
///
/// ```json
/// "audit": {"checkpointEvery": 1000, "checkpointInterval": "5m"}
/// ```
package struct AuditSettings: Sendable, Hashable, Codable {
    /// Sign a checkpoint after every this many entries (at least 2; 1,000 when absent).
    package var checkpointEvery: Int?
    /// Also sign one this long after the last when entries were added meanwhile (5 minutes when
    /// absent; `none` or 0 turns it off).
    package var checkpointInterval: TimeLimit?

    package init(checkpointEvery: Int? = nil, checkpointInterval: TimeLimit? = nil) {
        self.checkpointEvery = checkpointEvery
        self.checkpointInterval = checkpointInterval
    }
}
