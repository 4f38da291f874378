import Hummingbird
import Logging

/// Where refusals go: one warning line each, and a count by reason in the metrics.
struct RefusalLog: Sendable {
    let logger: Logger
    let metrics: HostMetrics

    func record(_ refusal: RequestRefusal, _ request: Request) {
        metrics.refused(reason: refusal.reason)
        logger.warning(
            request.isWebSocketUpgrade ? "WebSocket refused" : "request refused",
            metadata: [
                "reason": "\(refusal.message)", "status": "\(refusal.status.code)", "path": "\(request.uri.path)",
                "host": "\(request.head.authority ?? "")",
            ])
    }
}
