import Foundation
import Hummingbird
import StoryBridge

/// What the inspector's Record/Stop button drives: a recorder of click-throughs that the program
/// running the server provides (`storybridge serve` gives one that writes test scripts).
package protocol RecordingControl: Sendable {
    /// Starts recording what happens on `host` (a no-op when already recording) and says where.
    func start(on host: StoryBridgeHost) async throws -> RecordingStatus
    /// Stops recording, the file complete, and says what it holds.
    func stop() async -> RecordingStatus
    /// Whether it is recording, into which file, and how much so far.
    func status() async -> RecordingStatus
}

/// The state of a ``RecordingControl``, as `/__storybridge/recording` answers it.
package struct RecordingStatus: Sendable, Hashable {
    package var recording: Bool
    /// The script being written, or the last one written.
    package var file: String?
    package var viewers: Int
    package var steps: Int

    package init(recording: Bool, file: String?, viewers: Int, steps: Int) {
        self.recording = recording
        self.file = file
        self.viewers = viewers
        self.steps = steps
    }

    var json: JSONValue {
        [
            "recording": .bool(recording), "file": file.map(JSONValue.string) ?? .null, "viewers": .int(viewers),
            "steps": .int(steps),
        ]
    }
}

/// `/__storybridge/recording`, with the launch token: `GET` says whether a click-through is being
/// recorded; `POST` with `{"recording": true}` starts and `{"recording": false}` stops it. Both
/// answer the status. `GET /__storybridge/recording/script` downloads the script being written or
/// the last one written. A host without a ``RecordingControl`` answers 404.
struct RecordingRoutes: Sendable {
    /// The endpoint's path; it takes writes (``ReadOnlyMiddleware``).
    static let path = "/__storybridge/recording"

    let control: (any RecordingControl)?
    let host: StoryBridgeHost
    let token: LaunchToken
    let refusals: RefusalLog

    func add(to router: Router<HostRequestContext>) {
        let group = router.tokenGuarded(Self.path, token: token, refusals: refusals)
        group.get { _, _ in try await Response.json(available().status().json) }
        group.get("script") { _, _ in try await script() }
        group.post { request, _ in
            let control = try available()
            let buffer = try await request.body.collect(upTo: 4_096)
            guard case .object(let members)? = try? JSONValue.parse(String(buffer: buffer)),
                case .bool(let recording)? = members["recording"]
            else {
                throw HostHTTPError(.badRequest, "The body must be {\"recording\": true} or {\"recording\": false}")
            }
            guard recording else { return Response.json(await control.stop().json) }
            do {
                return Response.json(try await control.start(on: host).json)
            } catch {
                throw HostHTTPError(.internalServerError, "Cannot start recording: \(SystemProblem(error))")
            }
        }
    }

    /// The script file as an attachment, under its own name.
    private func script() async throws -> Response {
        guard let path = try await available().status().file else {
            throw HostHTTPError.notFound("Nothing has been recorded yet: press Record first")
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw HostHTTPError(.internalServerError, "Cannot read the recording \(path): \(SystemProblem(error))")
        }
        var response = Response.body(text, type: "application/json", cache: "no-store")
        let name = URL(fileURLWithPath: path).lastPathComponent.replacingOccurrences(of: "\"", with: "")
        response.headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        return response
    }

    private func available() throws -> any RecordingControl {
        guard let control else {
            throw HostHTTPError.notFound("This host records no click-throughs (storybridge serve does)")
        }
        return control
    }
}
