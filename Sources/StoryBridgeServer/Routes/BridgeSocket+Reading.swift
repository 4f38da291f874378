import HummingbirdWebSocket
import StoryBridge

/// The reading task of a page connection: where it runs, and what it does with each frame.
extension BridgeSocket {
    /// Starts module work in the connection's task group with the given executor preference
    /// (`nil`: inherited from the reading task).
    typealias SpawnWork = (@escaping @Sendable () async -> Void, (any TaskExecutor)?) -> Void

    /// Reads the page's frames until the page closes the socket: each routed once and handed to
    /// `connection`. With ``ConnectionPlacement/adaptive(_:waitingFrame:)`` the reading task moves between the
    /// socket's event loop and no executor preference at all (Swift's global executor, whose jobs
    /// skip the preference look-up) as ``ReadingPlacement`` says. On the event loop it answers
    /// frames from memory there; a frame that needs module work is handed on outside the event
    /// loop's scope, so the worker or task it starts runs on the global executor with no
    /// preference either. Otherwise everything stays where `serve` runs.
    func read(
        _ frames: inout WebSocketInboundMessageStream.AsyncIterator, into connection: PageConnection,
        reader: inout PageConnection.Reader, placement: ConnectionPlacement, spawn: SpawnWork
    ) async throws {
        guard case .adaptive(let eventLoop, let waitingFrame) = placement else {
            while let message = try await frames.next(isolation: #isolation) {
                await dispatch(InboundFrame(message, on: connection), into: connection, reader: &reader) { spawn($0, nil) }
            }
            return
        }
        var placed = ReadingPlacement(waitingFrame: waitingFrame)
        let clock = ContinuousClock()
        /// Reads frames where `place` says until the placement moves, a frame needs module work
        /// away from the event loop, or the socket ends.
        func readFrames(
            at place: ReadingPlacement.Place, _ frames: inout WebSocketInboundMessageStream.AsyncIterator,
            _ reader: inout PageConnection.Reader
        ) async throws -> ReadingStep {
            // Module work the machine starts for a memory command that memory did not hold.
            let moduleWork: (any TaskExecutor)? = place == .eventLoop ? globalConcurrentExecutor : nil
            while true {
                let asked = clock.now
                guard let message = try await frames.next(isolation: #isolation) else { return .ended }
                let next = placed.frameRead(waited: clock.now - asked)
                let frame = InboundFrame(message, on: connection)
                if place == .eventLoop && frame.needsModuleWork { return .offTheEventLoop(frame) }
                await dispatch(frame, into: connection, reader: &reader) { spawn($0, moduleWork) }
                if next != place { return .moved }
            }
        }
        while true {
            let step: ReadingStep
            switch placed.place {
            case .eventLoop:
                step = try await withTaskExecutorPreference(eventLoop) { try await readFrames(at: .eventLoop, &frames, &reader) }
            case .globalExecutor:
                step = try await readFrames(at: .globalExecutor, &frames, &reader)
            }
            switch step {
            case .ended: return
            case .moved: continue
            case .offTheEventLoop(let frame):
                await dispatch(frame, into: connection, reader: &reader) { spawn($0, nil) }
            }
        }
    }

    /// Why the reading task stopped reading where it was.
    private enum ReadingStep {
        case ended
        case moved
        /// This frame needs module work: handed on outside the event loop's scope.
        case offTheEventLoop(InboundFrame)
    }

    /// One frame of the page, its requests routed once: the page load's hold and the machine
    /// read the same routes.
    private enum InboundFrame {
        case text(RoutedFrame)
        case binary

        init(_ message: WebSocketMessage, on connection: PageConnection) {
            switch message {
            case .text(let text): self = .text(connection.route(BridgeRequest.read(frame: text)))
            case .binary: self = .binary
            }
        }

        /// Whether it is anything but a frame of commands that only read memory (those the
        /// reading task answers itself); an unreadable frame counts too, and is refused off the loop.
        var needsModuleWork: Bool {
            guard case .text(let frame) = self else { return false }
            return !PageConnection.onlyReadsMemory(frame)
        }
    }

    private func dispatch(
        _ frame: InboundFrame, into connection: PageConnection, reader: inout PageConnection.Reader,
        spawn: PageConnection.Spawn
    ) async {
        switch frame {
        case .text(let routed): await connection.receive(routed, reader: &reader, spawn: spawn)
        case .binary: await connection.receiveBinary()
        }
    }
}
