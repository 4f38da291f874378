import Foundation
import HTTPTypes
import StoryBridge
import Synchronization

/// serve's end of the control socket of `storybridge kiosk` (docs/design/FLEET.md §9.3): the
/// token a kiosk must present, the ``KioskControlState`` behind a lock, and each open
/// connection's outbox, through which the state's actions reach its socket.
package final class KioskControl: Sendable {
    /// What a connection's socket is to do.
    package enum Outgoing: Sendable, Equatable {
        /// Write `message`.
        case send(KioskControlMessage)
        /// Close with `code` and `reason`.
        case close(code: UInt16, reason: String)
    }

    /// The bearer token a kiosk presents (the run file's `controlToken`).
    package let token: String
    private let state: Mutex<KioskControlState>
    private let outboxes = Mutex<[Int: AsyncStream<Outgoing>.Continuation]>([:])
    private let exchanges = Mutex<[Int: ScreenshotExchange]>([:])
    private let nextConnection = Atomic<Int>(1)

    /// A control with `token`, telling kiosks to open `startURL`.
    package init(token: String = KioskRunFile.newToken(), startURL: String) {
        self.token = token
        self.state = Mutex(KioskControlState(startURL: startURL))
    }

    /// Why the upgrade `request`, from a peer that is (`loopback`) or is not on loopback, may not
    /// become a control socket; nil when it may. A browser page always sends an `Origin` of its
    /// own, `http(s)` or `null`, so one that does is refused whatever its token; a client library's
    /// `ws(s)://` origin is allowed.
    package func refusal(of request: HTTPRequest, loopback: Bool) -> KioskControlRefusal? {
        guard loopback else { return .notLoopback }
        // A browser page's Origin is http(s) (or "null"); a WebSocket client library's, when it
        // sends one, names the ws(s) URL it connects to. Every Origin field is looked at: a
        // request may carry more than one, and the first alone would let a page's through behind
        // a library's.
        if let origin = request.headerFields[values: .origin].first(where: { !($0.hasPrefix("ws://") || $0.hasPrefix("wss://")) }) {
            return .origin(origin)
        }
        guard let header = request.headerFields[.authorization], header.hasPrefix("Bearer "),
            ConstantTime.equal(String(header.dropFirst("Bearer ".count)), token)
        else { return .token }
        return nil
    }

    /// A new connection: its number, and the stream of what its socket is to do.
    package func open() -> (connection: Int, outbox: AsyncStream<Outgoing>) {
        let connection = nextConnection.add(1, ordering: .relaxed).oldValue
        let (stream, continuation) = AsyncStream<Outgoing>.makeStream()
        outboxes.withLock { $0[connection] = continuation }
        exchanges.withLock { $0[connection] = ScreenshotExchange() }
        return (connection, stream)
    }

    /// `connection` sent `text`; a message that is not one is logged by the caller from the
    /// error thrown. The attached kiosk's `idle` is returned as the report the caller acts on
    /// (it ends the viewer's session, then calls ``idleHandled(_:)``).
    @discardableResult
    package func received(_ text: String, on connection: Int) throws(KioskControlMessage.DecodingFailure)
        -> KioskControlState.IdleReport?
    {
        let message = try KioskControlMessage.decode(Data(text.utf8))
        if case .idle(let viewer) = message { return state.withLock { $0.idle(viewer: viewer, on: connection) } }
        let actions: [KioskControlState.Action] = state.withLock { state in
            switch message {
            case .attach(let attach): return state.attach(attach, on: connection)
            case .status(let status):
                state.status(status, on: connection)
                return []
            case .screenshotResult(let result):
                exchanges.withLock { $0[connection] }?.answered(
                    id: result.id, width: result.width, height: result.height, takenAt: result.takenAt, error: result.error)
                return []
            case .idle, .start, .screenshot, .idleDone, .unknown: return []
            }
        }
        perform(actions)
        return nil
    }

    /// The session of `report`'s viewer has ended: the kiosk gets `idleDone`.
    package func idleHandled(_ report: KioskControlState.IdleReport) {
        perform(state.withLock { $0.idleHandled(report) })
    }

    /// `connection` sent a binary frame: the PNG of its last screenshot answer.
    package func receivedBinary(_ data: Data, on connection: Int) {
        exchanges.withLock { $0[connection] }?.receivedBinary(data)
    }

    /// How long the kiosk has to answer a screenshot request (the hub waits 5 s in all).
    package static let screenshotLimit = Duration.seconds(4)

    /// What the attached kiosk's browser shows, or nil at once when no kiosk is attached.
    package func screenshot(within limit: Duration = KioskControl.screenshotLimit) async -> ScreenshotOutcome? {
        guard let connection = attached?.connection, let exchange = exchanges.withLock({ $0[connection] }) else { return nil }
        let id = UUID().uuidString
        return await exchange.request(id: id, within: limit) { [self] in
            perform([.send(connection: connection, .screenshot(id: id))])
        }
    }

    /// `connection` closed.
    package func closed(_ connection: Int) {
        state.withLock { $0.closed(connection) }
        outboxes.withLock { $0.removeValue(forKey: connection) }?.finish()
        exchanges.withLock { $0.removeValue(forKey: connection) }?.close("the kiosk's control socket closed")
    }

    /// The scheduled deck's start page changed to `url`.
    package func startURLChanged(to url: String) {
        perform(state.withLock { $0.startURLChanged(to: url) })
    }

    /// The attached kiosk and its latest counters, if one is attached.
    package var attached: KioskControlState.Attached? { state.withLock { $0.attached } }

    private func perform(_ actions: [KioskControlState.Action]) {
        for action in actions {
            switch action {
            case .send(let connection, let message):
                _ = outboxes.withLock { $0[connection] }?.yield(.send(message))
            case .close(let connection, let code, let reason):
                _ = outboxes.withLock { $0[connection] }?.yield(.close(code: code, reason: reason))
            }
        }
    }
}

/// Why a control socket is refused (closed with 4403 and the reason once the client has spoken).
package enum KioskControlRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer is not on loopback.
    case notLoopback
    /// The request carries an `Origin` header (a browser page).
    case origin(String)
    /// The bearer token is missing or wrong.
    case token

    package var description: String {
        switch self {
        case .notLoopback: "Refused: the kiosk control socket takes connections from this machine only"
        case .origin: "Refused: the kiosk control socket is not for web pages (the request has an Origin)"
        case .token: "Refused: missing or wrong control token (read it from run/serve.json in the data folder)"
        }
    }
}
