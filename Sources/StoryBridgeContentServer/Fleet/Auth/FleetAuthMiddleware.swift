import Foundation
import Hummingbird
import StoryBridge

/// Who may read the fleet's JSON routes (docs/design/FLEET.md §5.5): an admin user's access token
/// (`Authorization: Bearer`, from the password grant) on every one of them, and on the Prometheus
/// routes a scraper's device token too. (Admin sessions, the dashboard's cookie, come with the
/// login page.)
///
/// - No credentials, or a token that is malformed, forged, expired, unknown or revoked: 401.
/// - A valid token of someone who may not see the fleet (a user who is not admin, a service's
///   `client_credentials` token, a kiosk's device token; a scraper's outside the Prometheus
///   routes): 403.
///
/// The bodies are `{"error": "…"}` and name no kiosk: they are written before any route has read
/// the fleet.
struct FleetAuthMiddleware: RouterMiddleware {
    typealias Context = ContentRequestContext

    /// Which routes the middleware guards.
    enum Audience: Sendable {
        /// `/v1/fleet`, `/v1/fleet/kiosks/…`: admins only.
        case admins
        /// `/v1/fleet/prometheus-sd`, `/v1/fleet/metrics`: admins and scraper tokens.
        case scrapers
    }

    let audience: Audience
    let tokens: TokenService
    let accounts: ContentServerAccounts
    let devices: DeviceStore
    let clock: any HostClock

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw ContentAPIError.unauthorized("sign in: an Authorization: Bearer access token of an admin user is needed")
        }
        let prefix = "bearer "
        guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix else {
            throw ContentAPIError.unauthorized("the Authorization header is not a Bearer token")
        }
        let token = header.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
        if token.hasPrefix(DeviceToken.prefix) {
            try await checkDevice(token)
        } else {
            try await checkUser(token)
        }
        return try await next(request, context)
    }

    private func checkDevice(_ token: String) async throws {
        let verdict: DeviceVerdict
        do {
            verdict = try await devices.verifyAsync(token: token)
        } catch {
            throw ContentAPIError.unavailable("the hub cannot read its devices now; try again", retryAfter: 1)
        }
        switch verdict {
        case .malformed, .unknown: throw ContentAPIError.unauthorized("the device token is not known")
        case .revoked: throw ContentAPIError.unauthorized("the device token was revoked")
        case .valid(let device) where device.kind == .scraper:
            guard audience == .scrapers else {
                throw ContentAPIError.forbidden("a scraper token may read only /v1/fleet/prometheus-sd and /v1/fleet/metrics")
            }
        case .valid:
            throw ContentAPIError.forbidden("a kiosk's device token cannot read the fleet")
        }
    }

    private func checkUser(_ token: String) async throws {
        let claims: AccessTokenClaims
        do throws(TokenVerificationError) {
            claims = try await tokens.verifyAccessToken(token, now: clock.now)
        } catch {
            throw ContentAPIError.unauthorized(BearerTokenMiddleware.explain(error))
        }
        guard let subject = claims.sub else {
            throw ContentAPIError.forbidden("a service's token (client_credentials) cannot read the fleet; use an admin user's token")
        }
        guard let user = accounts.users.first(where: { $0.guid == subject }) else {
            throw ContentAPIError.unauthorized("the token's user is no longer configured")
        }
        guard user.isAdmin else { throw ContentAPIError.forbidden("this user may not see the fleet (not an admin)") }
    }
}
