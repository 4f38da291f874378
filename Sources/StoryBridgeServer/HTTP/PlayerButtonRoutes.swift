import Foundation
import Hummingbird
import StoryBridge

/// `POST /__storybridge/viewers/{viewer}/player/{event}`, with the launch token: presses a button
/// of the OCE app's player for that viewer (``OcePlayerButton``; `event` is
/// `returntocallbuttonpress`, `cancelbuttonpress` or `pausebuttonpress`), which content hears
/// through `CLMPlayer.executeEvent`. The inspector's viewer card has these buttons for a viewer
/// of an OCE deck. Answers `{"viewer", "event"}`; 404 for an unknown viewer, 409 when it shows no
/// page or no OCE deck, 400 for another event.
struct PlayerButtonRoutes: Sendable {
    /// The folder of the per-viewer endpoints.
    static let path = "/__storybridge/viewers"

    /// Whether `path` is a press (a `POST` the read-only rule lets through: ``ReadOnlyMiddleware``).
    static func takesWrites(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        // "", "__storybridge", "viewers", viewer, "player", event
        return path.hasPrefix(Self.path + "/") && parts.count == 6 && parts[4] == "player"
    }

    let host: StoryBridgeHost
    let token: LaunchToken
    let refusals: RefusalLog

    func add(to router: Router<HostRequestContext>) {
        let group = router.tokenGuarded(Self.path, token: token, refusals: refusals)
        group.post(":viewer/player/:event") { _, context in
            let viewer = context.parameters.get("viewer") ?? ""
            let event = context.parameters.get("event") ?? ""
            do throws(OcePlayerButton.Refusal) {
                try await OcePlayerButton(event: event).press(viewerId: viewer, viewers: host.viewers, library: host.library)
            } catch {
                throw HostHTTPError(Self.status(of: error), error.description)
            }
            return Response.json(["viewer": .string(viewer), "event": .string(event)])
        }
    }

    /// The HTTP status a refusal is answered with.
    static func status(of refusal: OcePlayerButton.Refusal) -> HTTPResponse.Status {
        switch refusal {
        case .unknownViewer: return .notFound
        case .notConnected, .notAnOceDeck: return .conflict
        case .unknownEvent: return .badRequest
        }
    }
}
