import Foundation
import Hummingbird

/// An error of a content or blob route; its status, headers and JSON body `{"error": ...}` follow
/// from the case.
enum ContentAPIError: Error, Sendable, Equatable, HTTPResponseError {
    /// No bearer token, or one that is malformed, forged or expired (401, `WWW-Authenticate: Bearer`).
    case unauthorized(String)
    /// No such object.
    case notFound(String)
    /// A blob link with a bad signature, or one that expired (403).
    case forbidden(String)
    /// A `Range` that starts past the end (416, `Content-Range: bytes */size`).
    case rangeNotSatisfiable(size: Int64)
    /// The server cannot answer now; try again after `retryAfter` seconds (503).
    case unavailable(String, retryAfter: Int)
    /// Too many requests: try again after `retryAfter` seconds (429; no `Retry-After` when nil).
    case tooManyRequests(String, retryAfter: Int?)
    /// The `Host` header names a host that is not one of the server's names (421; DNS rebinding,
    /// or a name to add with `--allowed-host`).
    case foreignHost(String)
    /// The request has no `Host` header (400).
    case missingHost
    /// A query or form the route cannot use (400); the reason names the parameter.
    case badRequest(String)
    /// Something on the server's side failed (500); the body says what without naming local
    /// paths, the server's log has the details.
    case serverFailure(String)
    /// A failure the server answers on purpose (`--test-fail-first`): `status` (a 5xx or 429)
    /// with `Retry-After` when `retryAfter` is set.
    case failingOnPurpose(status: Int, retryAfter: Int?)

    package var status: HTTPResponse.Status {
        switch self {
        case .unauthorized: return .unauthorized
        case .notFound: return .notFound
        case .forbidden: return .forbidden
        case .rangeNotSatisfiable: return .rangeNotSatisfiable
        case .unavailable: return .serviceUnavailable
        case .tooManyRequests: return .tooManyRequests
        case .serverFailure: return .internalServerError
        case .foreignHost: return .misdirectedRequest
        case .missingHost, .badRequest: return .badRequest
        case .failingOnPurpose(let status, _): return HTTPResponse.Status(code: status)
        }
    }

    /// What the body's `error` says.
    package var message: String {
        switch self {
        case .unauthorized(let reason), .notFound(let reason), .forbidden(let reason), .serverFailure(let reason),
            .badRequest(let reason):
            return reason
        case .foreignHost(let name):
            return
                "'\(name)' is not a name of this server; start it with --allowed-host \(name) (or --public-url) if clients reach it by that name"
        case .missingHost: return "the request has no Host header"
        case .rangeNotSatisfiable(let size): return "the requested range is outside the \(size) bytes of the blob"
        case .unavailable(let reason, _), .tooManyRequests(let reason, _): return reason
        case .failingOnPurpose(let status, _): return "failing on purpose with HTTP \(status) (--test-fail-first)"
        }
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        switch self {
        case .unauthorized(let reason):
            let escaped = reason.replacingOccurrences(of: "\"", with: "'")
            headers[.wwwAuthenticate] = #"Bearer error="invalid_token", error_description="\#(escaped)""#
        case .rangeNotSatisfiable(let size):
            headers[.contentRange] = "bytes */\(size)"
        case .unavailable(_, let retryAfter):
            headers[.retryAfter] = String(retryAfter)
        case .tooManyRequests(_, let retryAfter), .failingOnPurpose(_, let retryAfter):
            if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        case .notFound, .forbidden, .serverFailure, .foreignHost, .missingHost, .badRequest:
            break
        }
        return JSONReply.response(status: status, ["error": message], headers: headers)
    }
}
