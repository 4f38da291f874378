import Foundation
import Synchronization

/// A screenshot: the PNG and what its answer said of it.
package struct ScreenshotPicture: Sendable, Equatable {
    /// The PNG.
    package var png: Data
    /// Its width in pixels.
    package var width: Int
    /// Its height in pixels.
    package var height: Int
    /// When it was taken (ISO 8601, as the kiosk wrote it).
    package var takenAt: String

    /// A picture.
    package init(png: Data, width: Int, height: Int, takenAt: String) {
        self.png = png
        self.width = width
        self.height = height
        self.takenAt = takenAt
    }
}

/// How a screenshot request ended.
package enum ScreenshotOutcome: Sendable, Equatable {
    /// The reason serve gives when no `storybridge kiosk` is attached to it (the hub answers 409).
    package static let noKioskAttached = "no storybridge kiosk is attached to serve"

    /// The picture.
    case picture(ScreenshotPicture)
    /// No picture, and why (the kiosk's error, no answer in time, the socket gone).
    case failed(String)
}

/// Screenshot requests over one socket (hub → kiosk's serve, serve → `storybridge kiosk`;
/// docs/design/FLEET.md §9.3): each request waits for its answer, a `screenshotResult` text frame
/// followed, when it carries no error, by one binary frame with the PNG, or for its time limit.
package final class ScreenshotExchange: Sendable {
    private struct Header: Sendable {
        var id: String
        var width: Int
        var height: Int
        var takenAt: String
    }

    private struct State: Sendable {
        var waiters: [String: CheckedContinuation<ScreenshotOutcome, Never>] = [:]
        /// A result whose PNG is the next binary frame.
        var header: Header?
        var closed: String?
    }

    private let state = Mutex(State())

    /// An exchange with no request pending.
    package init() {}

    /// Asks for screenshot `id` with `send` and waits for its answer, at most `limit`.
    package func request(id: String, within limit: Duration, send: @escaping @Sendable () async throws -> Void) async
        -> ScreenshotOutcome
    {
        await withCheckedContinuation { continuation in
            let closed: String? = state.withLock { state in
                if let reason = state.closed { return reason }
                state.waiters[id] = continuation
                return nil
            }
            if let closed {
                continuation.resume(returning: .failed(closed))
                return
            }
            Task {
                do {
                    try await send()
                } catch {
                    self.resolve(id, .failed("the request could not be sent: \(error)"))
                }
            }
            Task {
                try? await Task.sleep(for: limit)
                self.resolve(id, .failed("no screenshot within \(limit.components.seconds) s"))
            }
        }
    }

    /// The answer to `id` arrived: with `error`, the request fails with it; otherwise its PNG is
    /// the next binary frame.
    package func answered(id: String, width: Int?, height: Int?, takenAt: String?, error: String?) {
        if let error {
            resolve(id, .failed(error))
            return
        }
        guard let width, let height else {
            resolve(id, .failed("the screenshot's answer has no size"))
            return
        }
        state.withLock { $0.header = Header(id: id, width: width, height: height, takenAt: takenAt ?? "") }
    }

    /// A binary frame arrived: the PNG of the answer before it, if one is waiting for it.
    package func receivedBinary(_ data: Data) {
        guard
            let header = state.withLock({ state -> Header? in
                defer { state.header = nil }
                return state.header
            })
        else { return }
        resolve(header.id, .picture(ScreenshotPicture(png: data, width: header.width, height: header.height, takenAt: header.takenAt)))
    }

    /// The socket is gone: every request pending, and any later one, fails with `reason`.
    package func close(_ reason: String) {
        let waiters = state.withLock { state in
            state.closed = reason
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: .failed(reason)) }
    }

    private func resolve(_ id: String, _ outcome: ScreenshotOutcome) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: outcome)
    }
}
