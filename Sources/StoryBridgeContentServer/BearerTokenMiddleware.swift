import Foundation
import Hummingbird
import StoryBridge

/// Lets a request through only with `Authorization: Bearer <token>` whose signature is the
/// server's and whose `exp` has not passed; the claims go into the context.
struct BearerTokenMiddleware: RouterMiddleware {
    typealias Context = ContentRequestContext
    let tokens: TokenService
    /// The time a token's `exp` is checked against.
    let clock: any HostClock

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw ContentAPIError.unauthorized("an Authorization: Bearer token is required")
        }
        let prefix = "bearer "
        guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix else {
            throw ContentAPIError.unauthorized("the Authorization header is not a Bearer token")
        }
        let token = header.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
        var context = context
        do throws(TokenVerificationError) {
            context.claims = try await tokens.verifyAccessToken(token, now: clock.now)
        } catch {
            throw ContentAPIError.unauthorized(Self.explain(error))
        }
        return try await next(request, context)
    }

    static func explain(_ error: TokenVerificationError) -> String {
        switch error {
        case .malformed: return "the token is not a JWT this server issued"
        case .badSignature: return "the token's signature is not valid"
        case .expired: return "the token has expired"
        case .notYetValid: return "the token is not valid yet (nbf)"
        case .wrongKind: return "a refresh token cannot be used as an access token"
        }
    }
}
