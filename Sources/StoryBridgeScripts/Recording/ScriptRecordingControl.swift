import Foundation
import StoryBridge
import StoryBridgeServer

/// Records click-throughs of a host into test scripts on demand: the ``RecordingControl`` behind
/// the inspector's Record/Stop button and `serve --record`. Each start follows the host's feed
/// with a new ``ClickThroughRecorder``; each stop writes its script a last time.
package actor ScriptRecordingControl: RecordingControl {
    private let decks: [ClickThroughRecorder.Deck]
    private let nextFile: @Sendable () -> URL
    private let onFailure: @Sendable (String) -> Void
    private var current: (recorder: ClickThroughRecorder, task: Task<Void, Never>)?
    private var last: ClickThroughRecorder?

    /// `nextFile` names the script of each recording started; `onFailure` hears of a file that
    /// cannot be written while recording.
    package init(
        decks: [ClickThroughRecorder.Deck], nextFile: @escaping @Sendable () -> URL,
        onFailure: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.decks = decks
        self.nextFile = nextFile
        self.onFailure = onFailure
    }

    package func start(on host: StoryBridgeHost) async throws -> RecordingStatus {
        if current == nil {
            let recorder = ClickThroughRecorder(file: nextFile(), decks: decks)
            try recorder.write()
            // Subscribed before start() returns, so nothing done after the answer is missed.
            let feed = host.feed
            let subscription = feed.subscribe()
            let onFailure = self.onFailure
            let task = Task { await recorder.follow(subscription, of: feed, onFailure: onFailure) }
            current = (recorder, task)
        }
        return status()
    }

    package func stop() async -> RecordingStatus {
        if let current {
            current.task.cancel()
            await current.task.value
            try? current.recorder.write()
            last = current.recorder
            self.current = nil
        }
        return status()
    }

    package func status() -> RecordingStatus {
        let recorder = current?.recorder ?? last
        let counts = recorder?.counts ?? (tests: 0, steps: 0)
        return RecordingStatus(recording: current != nil, file: recorder?.file.path, viewers: counts.tests, steps: counts.steps)
    }

    /// The recorder of the recording under way, or of the last one.
    package var recorder: ClickThroughRecorder? { current?.recorder ?? last }
}
