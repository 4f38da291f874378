@testable import StoryBridge

extension FrameDispatcher {
    /// Routes and dispatches one text frame, as the bridge socket's reading loop does.
    func dispatch(frame text: String, spawn: (@escaping @Sendable () async -> Void) -> Void) async {
        var bytes: [UInt8] = []
        await dispatch(route(BridgeRequest.read(frame: text)), writingInto: &bytes, spawn: spawn)
    }
}
