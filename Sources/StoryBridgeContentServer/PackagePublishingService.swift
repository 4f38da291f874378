import Foundation
import Logging
import ServiceLifecycle
import StoryBridge

/// Runs beside the HTTP server: at start-up it queues a build for every served presentation whose
/// package is missing or out of date (and republishes those of `republishAtStart` once that is
/// done), then looks at the library every ``interval`` and queues one for each presentation
/// installed (or reinstalled) since, so packages are built when presentations are installed rather
/// than inside a request.
struct PackagePublishingService: Service {
    let catalog: ContentCatalog
    let interval: Duration
    let republishAtStart: [Int]
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await scan()
            if !republishAtStart.isEmpty {
                await catalog.packages.waitUntilIdle()
                for id in republishAtStart { await republish(id) }
            }
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                await scan()
            }
        }
    }

    private func scan() async {
        do {
            await catalog.packages.publishMissing(try await catalog.servedPresentations().map(\.presentation))
        } catch {
            logger.error("cannot read the library to publish packages: \(error)")
        }
    }

    private func republish(_ id: Int) async {
        do {
            let package = try await catalog.republish(id)
            logger.notice("republished presentation \(id): package \(package.id) revision \(package.revision)")
        } catch {
            logger.error("cannot republish presentation \(id): \(error)")
        }
    }
}
