import Foundation
import HTTPTypes
import Hummingbird
import NIOWebSocket

/// Why the host refuses a request or a page's WebSocket. The HTTP status, the message, the
/// WebSocket close code and the metrics label all derive from the case.
enum RequestRefusal: Error, Equatable, Sendable {
    /// The `Host` header names a host that is not this one (DNS rebinding, or a name to allow).
    case foreignHost(String)
    /// The request has no `Host` header.
    case missingHost
    /// The launch token is missing or wrong.
    case badToken
    /// The `Origin` header names a web page of another site.
    case badOrigin(String)
    /// A query parameter of the bridge endpoint is missing or invalid.
    case missingParameter(String)
    /// The page names a presentation the library does not hold.
    case unknownPresentation(Int)
    /// The page names a slide its presentation does not have.
    case unknownSlide(String)
    /// The page names a presentation the content service has blocked (`lockout`).
    case blockedPresentation(Int)
    /// The host already serves its limit of bridge connections.
    case tooManyConnections(Int)

    var status: HTTPResponse.Status {
        switch self {
        case .foreignHost: return .misdirectedRequest
        case .missingHost, .missingParameter, .unknownSlide, .unknownPresentation: return .badRequest
        case .badToken, .badOrigin, .blockedPresentation: return .forbidden
        case .tooManyConnections: return .serviceUnavailable
        }
    }

    var message: String {
        switch self {
        case .foreignHost(let name):
            return "Refused: '\(name)' is not a name of this host. storybridge answers only to 127.0.0.1, localhost, [::1] "
                + "and the address it is bound to; start it with --allowed-host \(name) if you reach it by that name."
        case .missingHost: return "Refused: the request has no Host header"
        case .badToken: return "Refused: missing or wrong token (only pages served by this host may connect)"
        case .badOrigin(let origin): return "Refused: origin '\(origin)' is not this host"
        case .missingParameter(let name): return "Refused: query parameter '\(name)' is missing or invalid"
        case .unknownPresentation(let id): return "Refused: presentation \(id) is not in the library"
        case .unknownSlide(let slide): return "Refused: '\(slide)' is not a slide of that presentation"
        case .blockedPresentation(let id): return "Refused: presentation \(id) is blocked by the content service"
        case .tooManyConnections(let limit): return "Refused: the host already serves \(limit) connections"
        }
    }

    /// The label under which the refusal is counted in `storybridge_refused_requests_total`.
    var reason: String {
        switch self {
        case .foreignHost, .missingHost: return "host"
        case .badToken: return "token"
        case .badOrigin: return "origin"
        case .missingParameter, .unknownPresentation, .unknownSlide, .blockedPresentation: return "request"
        case .tooManyConnections: return "connection-limit"
        }
    }

    /// The close code of a WebSocket refused after its upgrade: 4000 plus the HTTP status
    /// (4400, 4403, 4503), in the range RFC 6455 leaves to applications. Browsers hide the status of
    /// a refused upgrade from the page, but show it a close code and reason.
    var closeCode: WebSocketErrorCode {
        .unknown(UInt16(4000 + status.code))
    }

    /// ``message`` cut to the 123 bytes a close frame's reason may hold, on a character boundary.
    var closeReason: String {
        var reason = message
        while reason.utf8.count > 123 { reason.removeLast() }
        return reason
    }
}

extension RequestRefusal: HTTPResponseError {
    func response(from request: Request, context: some RequestContext) -> Response {
        .text(status, message)
    }
}

/// An HTTP answer that is not a refusal: a missing file or presentation, a method the host does
/// not serve, a WebSocket path fetched without an upgrade.
struct HostHTTPError: HTTPResponseError {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    func response(from request: Request, context: some RequestContext) -> Response {
        .text(status, message)
    }

    static func notFound(_ message: String) -> HostHTTPError { HostHTTPError(.notFound, message) }

    /// A WebSocket path fetched as a plain page.
    static let upgradeRequired = HostHTTPError(.upgradeRequired, "This endpoint only accepts WebSocket upgrades")
}
