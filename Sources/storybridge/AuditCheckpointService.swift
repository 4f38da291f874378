import Foundation
import Logging
import ServiceLifecycle
import StoryBridge

/// serve's time-based checkpoints (docs/design/TRUST.md 4.5): every `interval` on the host's clock,
/// a checkpoint of the audit log's head when entries were added since the last one (those every N
/// entries are made by the writes themselves). The one at a clean stop is made after the server
/// stopped (``AuditStart/stop(_:now:)``), so no write follows it.
struct AuditCheckpointService: Service {
    var database: StoryBridgeDatabase
    var interval: Duration
    var clock: any HostClock
    var logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await clock.sleep(for: interval)
                } catch {
                    return
                }
                let database = self.database
                let now = clock.now
                do {
                    try await database.write { db in _ = try AuditLog.checkpoint(db, in: database, at: now) }
                } catch {
                    logger.warning("audit: the checkpoint could not be written", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
