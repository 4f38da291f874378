import Foundation
import StoryBridge
import StoryBridgeScripts

/// `serve --record FILE`: follows the host's feed and keeps FILE a `storybridge test` script of
/// what the browsers did (``ClickThroughRecorder``), until the server stops.
struct ServeRecording {
    let recorder: ClickThroughRecorder
    let task: Task<Void, Never>

    /// Starts recording `host`'s feed into `file`. The script serves what `serve` was given: the
    /// folder or zip by its absolute path, or the installed decks' folders.
    static func start(file: String, target: String?, source: PresentationSource, host: StoryBridgeHost) throws -> ServeRecording {
        let url = URL(fileURLWithPath: file)
        var decks: [ClickThroughRecorder.Deck]
        if let target, FileManager.default.fileExists(atPath: target), let only = source.presentations.first {
            decks = [.init(path: URL(fileURLWithPath: target).standardizedFileURL.path, id: only.id)]
        } else {
            let ordered = source.presentations.sorted {
                ($0.id == source.defaultId ? 0 : 1, $0.id) < ($1.id == source.defaultId ? 0 : 1, $1.id)
            }
            decks = ordered.map { .init(path: $0.root.path, id: $0.id) }
        }
        let recorder = ClickThroughRecorder(file: url, decks: decks)
        do {
            try recorder.write()
        } catch {
            throw CommandFailure(
                SystemFailure("cannot write the recording", file, error: error).description, status: CommandFailure.storage)
        }
        let feed = host.feed
        let task = Task { await recorder.follow(feed) { Terminal.warn("warning: \($0)") } }
        return ServeRecording(recorder: recorder, task: task)
    }

    /// Stops following the feed, writes the script a last time and says what it holds.
    func finish() {
        task.cancel()
        try? recorder.write()
        let counts = recorder.counts
        var line =
            "Recorded \(counts.steps) steps of \(counts.tests) viewer(s) in \(recorder.file.path); replay: storybridge test \(recorder.file.path)"
        if recorder.skippedRequests > 0 { line += " (\(recorder.skippedRequests) requests left out: data over 4 KB)" }
        Terminal.say(line)
    }
}
