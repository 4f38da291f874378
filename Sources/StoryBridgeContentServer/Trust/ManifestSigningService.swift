import Foundation
import Logging
import ServiceLifecycle
import StoryBridge

/// Runs beside the HTTP server: at start and then every `interval` (of the server's clock) it
/// re-signs the manifests with less than a third of their lifetime left (docs/design/TRUST.md 1.7),
/// so kiosks that sync in that window pick up a fresh one before the old one expires.
struct ManifestSigningService: Service {
    let manifests: ManifestPublisher
    let interval: Duration
    let clock: any HostClock
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let renewed = try await manifests.resignDue()
                    if !renewed.isEmpty { logger.notice("re-signed \(renewed.count) manifest(s): \(renewed.joined(separator: ", "))") }
                } catch {
                    logger.error("cannot re-sign the manifests: \(error)")
                }
                do {
                    try await clock.sleep(for: interval)
                } catch {
                    return
                }
            }
        }
    }
}
