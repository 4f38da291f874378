import Foundation
import GRDB

/// The part of the chain a damaged database holds (docs/design/TRUST.md 5.3): when a log begins
/// with `chain.continued`, `audit verify` reads the database it names (moved aside at start-up,
/// `storybridge.sqlite.damaged-<time>` in the same folder) read-only, and that one's own
/// predecessor when it too continued another, so the chain is checked from its first entry.
/// Entries a damaged file holds beyond the position the fresh log continued from (the head file
/// lagged) are reported as recovered, not continued.
enum AuditDamagedChain {
    /// What `chain.continued` says it continues.
    struct Continuation {
        var database: String
        var position: Int
        var hash: Data

        /// The continuation `entry` states, if it is a `chain.continued` entry.
        init?(_ entry: AuditEntry) {
            guard entry.kind == AuditKind.chainContinued, let payload = try? JSONValue.parse(entry.payload),
                let detail = payload["detail"], let database = detail["fromDatabase"]?.stringValue,
                let position = detail["fromPosition"]?.intValue, let hex = detail["fromHash"]?.stringValue,
                let hash = Data(auditHex: hex)
            else { return nil }
            self.database = database
            self.position = position
            self.hash = hash
        }
    }

    /// Feeds `check` the entries of the damaged database `continuation` names, in position order,
    /// up to the position continued from; returns what could not be read or was not continued.
    static func feed(
        _ continuation: Continuation, folder: URL, into check: (AuditEntry) -> Void
    ) -> (findings: [AuditFinding], databases: Int) {
        // The damaged file's name comes from the log; only a plain name in the same folder is read.
        guard !continuation.database.contains("/"), continuation.database.hasPrefix("storybridge.sqlite.damaged-") else {
            return ([unreadable(continuation, "its name is not that of a database moved aside")], 0)
        }
        let file = folder.appendingPathComponent(continuation.database)
        guard FileManager.default.fileExists(atPath: file.path) else {
            return ([unreadable(continuation, "the file is gone")], 0)
        }
        do {
            let queue = try AuditVerifier.openForReading(file)
            defer { try? queue.close() }
            return try queue.read { db -> (findings: [AuditFinding], databases: Int) in
                var findings: [AuditFinding] = []
                var databases = 1
                let entries = try AuditEntry.order(AuditEntry.CodingKeys.position).fetchCursor(db)
                var first = true
                var recovered: (first: Int, last: Int)?
                while let entry = try entries.next() {
                    if first, let earlier = Continuation(entry) {
                        let fed = feed(earlier, folder: folder, into: check)
                        findings += fed.findings
                        databases += fed.databases
                    }
                    first = false
                    if entry.position <= continuation.position {
                        check(entry)
                    } else {
                        recovered = (recovered?.first ?? entry.position, entry.position)
                    }
                }
                if let recovered {
                    let lag = recovered.last - continuation.position
                    findings.append(
                        AuditFinding(
                            kind: .recoveredEntries, position: recovered.first,
                            detail:
                                "recovered from \(continuation.database): positions \(recovered.first)–\(recovered.last) (not continued; the head file lagged by \(lag))"
                        ))
                }
                return (findings, databases)
            }
        } catch {
            return ([unreadable(continuation, "\(error)")], 0)
        }
    }

    private static func unreadable(_ continuation: Continuation, _ reason: String) -> AuditFinding {
        AuditFinding(
            kind: .recoveredEntries, position: 1,
            detail:
                "positions 1–\(continuation.position) are in the damaged database \(continuation.database), which cannot be read (\(reason)): not verified"
        )
    }
}
