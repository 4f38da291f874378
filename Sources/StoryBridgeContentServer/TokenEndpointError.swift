import Foundation
import Hummingbird

/// An OAuth2 error of `POST /connect/token`: always 400 with `{"error": code, "error_description": ...}`,
/// as the StoryCLM auth server answers.
public enum TokenEndpointError: Error, Sendable, Equatable, HTTPResponseError {
    /// Unknown client id, or a wrong secret.
    case invalidClient(String)
    /// Wrong user name or password, or a refresh token that is invalid, expired or refused.
    case invalidGrant(String)
    /// A grant type other than the three served.
    case unsupportedGrantType(String)
    /// A required form field is missing, or the body is not a form.
    case invalidRequest(String)

    /// The OAuth2 `error` code.
    public var code: String {
        switch self {
        case .invalidClient: return "invalid_client"
        case .invalidGrant: return "invalid_grant"
        case .unsupportedGrantType: return "unsupported_grant_type"
        case .invalidRequest: return "invalid_request"
        }
    }

    /// The human explanation sent as `error_description`.
    public var reason: String {
        switch self {
        case .invalidClient(let reason), .invalidGrant(let reason), .unsupportedGrantType(let reason),
            .invalidRequest(let reason):
            return reason
        }
    }

    public var status: HTTPResponse.Status { .badRequest }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        JSONReply.response(status: status, ["error": code, "error_description": reason])
    }
}
