import Foundation
import Hummingbird

/// An OAuth2 error of `POST /connect/token`: 400 with `{"error": code, "error_description": ...}`,
/// as the StoryCLM auth server answers; 429 with `Retry-After` when failed logins are limited.
enum TokenEndpointError: Error, Sendable, Equatable, HTTPResponseError {
    /// Unknown client id, or a wrong secret.
    case invalidClient(String)
    /// Wrong user name or password, or a refresh token that is invalid, expired or refused.
    case invalidGrant(String)
    /// A grant type other than the three served.
    case unsupportedGrantType(String)
    /// A required form field is missing, or the body is not a form.
    case invalidRequest(String)
    /// Too many failed logins for the user or from the address: try again after `retryAfter`
    /// seconds (429, `error` is `too_many_requests`).
    case tooManyAttempts(retryAfter: Int)

    /// The OAuth2 `error` code.
    package var code: String {
        switch self {
        case .invalidClient: return "invalid_client"
        case .invalidGrant: return "invalid_grant"
        case .unsupportedGrantType: return "unsupported_grant_type"
        case .invalidRequest: return "invalid_request"
        case .tooManyAttempts: return "too_many_requests"
        }
    }

    /// The human explanation sent as `error_description`.
    package var reason: String {
        switch self {
        case .invalidClient(let reason), .invalidGrant(let reason), .unsupportedGrantType(let reason),
            .invalidRequest(let reason):
            return reason
        case .tooManyAttempts(let seconds):
            return "too many failed logins for this user or from this address; try again in \(seconds) s"
        }
    }

    /// Whether the error is a failed login that the throttle counts: wrong client credentials,
    /// a wrong password, a bad refresh token.
    var countsAsFailedLogin: Bool {
        switch self {
        case .invalidClient, .invalidGrant: return true
        case .unsupportedGrantType, .invalidRequest, .tooManyAttempts: return false
        }
    }

    package var status: HTTPResponse.Status {
        switch self {
        case .tooManyAttempts: return .tooManyRequests
        default: return .badRequest
        }
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        if case .tooManyAttempts(let seconds) = self { headers[.retryAfter] = String(seconds) }
        return JSONReply.response(status: status, ["error": code, "error_description": reason], headers: headers)
    }
}
