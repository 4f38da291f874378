import Foundation
import StoryBridge
import StoryBridgeScripts

/// `serve --record FILE` and the inspector's Record/Stop button: a ``ScriptRecordingControl`` on
/// the host's feed. `--record FILE` starts recording into FILE at once; the button records into
/// FILE too (a new recording replaces it), or, without `--record`, into
/// `recording-YYYYMMDD-HHMMSS.json` in the current folder.
enum ServeRecording {
    /// The control for the server. The script serves what `serve` was given: the folder or zip by
    /// its absolute path, or the installed decks' folders.
    static func control(file: String?, target: String?, source: PresentationSource) -> ScriptRecordingControl {
        var decks: [ClickThroughRecorder.Deck]
        if let target, FileManager.default.fileExists(atPath: target), let only = source.presentations.first {
            decks = [.init(path: URL(fileURLWithPath: target).standardizedFileURL.path, id: only.id)]
        } else {
            let ordered = source.presentations.sorted {
                ($0.id == source.defaultId ? 0 : 1, $0.id) < ($1.id == source.defaultId ? 0 : 1, $1.id)
            }
            decks = ordered.map { .init(path: $0.root.path, id: $0.id) }
        }
        return ScriptRecordingControl(
            decks: decks,
            nextFile: {
                if let file { return URL(fileURLWithPath: file) }
                let formatter = DateFormatter()
                formatter.dateFormat = "yyyyMMdd-HHmmss"
                formatter.locale = Locale(identifier: "en_US_POSIX")
                return URL(fileURLWithPath: "recording-\(formatter.string(from: Date())).json")
            },
            onFailure: { Terminal.warn("warning: \($0)") })
    }

    /// `--record FILE`: starts recording before the server listens.
    static func start(_ control: ScriptRecordingControl, file: String, host: StoryBridgeHost) async throws {
        do {
            _ = try await control.start(on: host)
        } catch {
            throw CommandFailure(
                SystemFailure("cannot write the recording", file, error: error).description, status: CommandFailure.storage)
        }
    }

    /// Stops a recording under way and says what the last one holds.
    static func finish(_ control: ScriptRecordingControl) async {
        let status = await control.stop()
        guard let file = status.file else { return }
        var line = "Recorded \(status.steps) steps of \(status.viewers) viewer(s) in \(file); replay: storybridge test \(file)"
        if let skipped = await control.recorder?.skippedRequests, skipped > 0 {
            line += " (\(skipped) requests left out: data over 4 KB)"
        }
        Terminal.say(line)
    }
}
