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

    /// Creates a dispatcher for one connection.
    public init(bridge: Bridge, context: BridgeContext, deliver: @escaping @Sendable (JSONValue) -> Void) {
        self.bridge = bridge
        self.context = context
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
                    spawn { await self.answer(request) }
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

    private func answer(_ request: BridgeRequest) async {
        if let response = await bridge.handle(request, context: context) {
            deliver(response.json)
        }
    }
}
