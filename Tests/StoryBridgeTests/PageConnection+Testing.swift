import Foundation
import NIOCore
import Testing

@testable import StoryBridge

extension PageConnection {
    /// A connection whose every outbound message goes to `deliver` as the page reads it (answers
    /// and events, as the bytes the one serialiser wrote, read back), with its writer running on
    /// a task of its own until ``close()``.
    convenience init(
        bridge: Bridge, context: BridgeContext, maxInFlight: Int = 64, deliver: @escaping @Sendable (JSONValue) -> Void
    ) {
        self.init(bridge: bridge, context: context, maxInFlight: maxInFlight) { message, _ in
            let text = String(buffer: message)
            do {
                deliver(try JSONValue.parse(text))
            } catch {
                Issue.record("a message that is not JSON: \(text)")
            }
        }
        Task { await self.runWriter() }
    }

    /// Routes and receives one text frame, as the bridge socket's reading loop does.
    func dispatch(frame text: String, spawn: Spawn) async {
        var reader = Reader()
        await receive(route(BridgeRequest.read(frame: text)), reader: &reader, spawn: spawn)
    }

    /// Receives `frames` one after another with what they spawn run in a task group, and returns
    /// once every answer they owe is written.
    func run(_ frames: [String]) async {
        await withDiscardingTaskGroup { group in
            for frame in frames {
                await dispatch(frame: frame) { work in group.addTask { await work() } }
            }
        }
        await drained()
    }
}
