import HTTPTypes
import Hummingbird
import StoryBridge

/// Why a request under `/p/<id>/` gets a page of the host instead of the presentation's file:
/// the presentation is not installed (404, the page names it and says how to get it) or the
/// content service has blocked it (403, `lockout`), or `storybridge verify` quarantined it (503:
/// its files differ from its manifest until the next sync repairs it). The pages are HTML, since a
/// viewer meets them by following a link or opening a deck.
enum PresentationUnavailable: HTTPResponseError {
    case missing(MissingPresentation)
    case blocked(Presentation)
    case quarantined(Presentation, reason: String)

    var status: HTTPResponse.Status {
        switch self {
        case .missing: return .notFound
        case .blocked: return .forbidden
        case .quarantined: return .serviceUnavailable
        }
    }

    func response(from request: Request, context: some RequestContext) -> Response {
        let page: String
        switch self {
        case .missing(let missing): page = HostPages.missing(missing)
        case .blocked(let presentation): page = HostPages.blocked(presentation)
        case .quarantined(let presentation, let reason): page = HostPages.quarantined(presentation, reason: reason)
        }
        return .body(page, type: "text/html; charset=utf-8", cache: "no-store", status: status)
    }
}
