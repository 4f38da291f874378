import Synchronization

/// Turns the text frames of one page connection into module calls and outbound messages.
///
/// Requests are handled in the order the page sent them; those whose module
/// ``BridgeModule/runsConcurrently`` are handed to `spawn` so they cannot hold up the rest.
/// A frame that cannot be read yields an `error` event (or, when a GUID could be read, a
/// `Failure` answer to it) and the connection goes on.
public struct FrameDispatcher: Sendable {
    public let bridge: Bridge
    public let context: BridgeContext
    /// Delivers one outbound message (a response or an event) to the page.
    public let deliver: @Sendable (JSONValue) -> Void
    /// Most concurrent requests (media, HTTP...) in flight at once on this connection; more are
    /// answered 429 at once.
    public let maxInFlight: Int
    private let inFlight = InFlightCounter()

    /// Creates a dispatcher for one connection.
    public init(
        bridge: Bridge, context: BridgeContext, maxInFlight: Int = 64, deliver: @escaping @Sendable (JSONValue) -> Void
    ) {
        self.bridge = bridge
        self.context = context
        self.maxInFlight = maxInFlight
        self.deliver = deliver
    }

    /// Handles one text frame. `spawn` runs work that may outlive the frame (concurrent modules).
    public func dispatch(frame text: String, spawn: (@escaping @Sendable () async -> Void) -> Void) async {
        let items: [Result<BridgeRequest, FrameError>]
        do {
            items = try BridgeRequest.requests(fromFrame: text)
        } catch {
            reject(error)
            return
        }
        for item in items {
            switch item {
            case .failure(let error):
                reject(error)
            case .success(let request):
                if bridge.runsConcurrently(request.command) {
                    guard inFlight.enter(limit: maxInFlight) else {
                        refuseBusy(request)
                        continue
                    }
                    spawn {
                        await self.answer(request)
                        self.inFlight.leave()
                    }
                } else {
                    await answer(request)
                }
            }
        }
    }

    /// Tells the page that a frame could not be read.
    public func reject(_ error: FrameError) {
        context.logger.warning("unreadable frame", metadata: ["error": "\(error.message)"])
        if case .invalidMember(_, _, let guid?) = error {
            let failure = BridgeError.invalidData(field: "request", reason: error.message)
            deliver(BridgeResponse.failure(guid: guid, error: failure).json)
        } else {
            deliver(HostEvent.error(error.message).json)
        }
    }

    private func refuseBusy(_ request: BridgeRequest) {
        let error = BridgeError.custom(
            code: 429, message: "Too many requests in flight on this connection (limit \(maxInFlight))", data: .emptyObject)
        context.logger.warning("request refused", metadata: ["reason": "\(error.message)"])
        if let guid = request.guid { deliver(BridgeResponse.failure(guid: guid, error: error).json) }
    }

    private func answer(_ request: BridgeRequest) async {
        if let response = await bridge.handle(request, context: context) {
            deliver(response.json)
        }
    }
}

/// Counts a connection's concurrent requests.
final class InFlightCounter: Sendable {
    private let count = Mutex(0)

    func enter(limit: Int) -> Bool {
        count.withLock { value in
            guard value < limit else { return false }
            value += 1
            return true
        }
    }

    func leave() {
        count.withLock { $0 -= 1 }
    }
}
