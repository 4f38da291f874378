import Foundation
import HTTPTypes
import Hummingbird
import StoryBridge

/// Who may use each kind of fleet route (docs/design/FLEET.md §5.5):
///
/// - ``Audience/admins`` (`/v1/fleet…`): an admin's session cookie, or an admin user's access
///   token (`Authorization: Bearer`, from the password grant). ``Audience/scrapers`` (the
///   Prometheus routes): the same, or a scraper's device token.
/// - ``Audience/pages`` (`/fleet`): an admin's session, else `303` to `/fleet/login`.
/// - ``Audience/actions`` (every `POST` but the login's): a session (else 401; ``Audience/logout``
///   403), its CSRF token (`X-CSRF-Token`, or the `csrf` form field) and, when the request has an
///   `Origin`, one of the server's own (else 403).
///
/// No credentials, or ones that are malformed, forged, expired, unknown or revoked, are 401; valid
/// ones of someone who may not see the fleet (a user who is not admin, a service's
/// `client_credentials` token, a kiosk's device token, a scraper's outside its routes) are 403.
/// The bodies are `{"error": "…"}` and name no kiosk: they are written before any route has read
/// the fleet. The admin's session, when there is one, goes into the context.
struct FleetAuthMiddleware: RouterMiddleware {
    typealias Context = ContentRequestContext

    /// Which routes the middleware guards.
    enum Audience: Sendable {
        /// `/v1/fleet`, `/v1/fleet/kiosks/…`: admins only.
        case admins
        /// `/v1/fleet/prometheus-sd`, `/v1/fleet/metrics`: admins and scraper tokens.
        case scrapers
        /// The dashboard's pages: a session, else a redirect to the login form.
        case pages
        /// State-changing requests: a session, its CSRF token and the server's own `Origin`.
        case actions
        /// `POST /fleet/logout`: as ``actions``, but 403 without a session too.
        case logout
    }

    /// The largest form a state-changing request may carry.
    static let maxFormSize = 64 * 1024

    let audience: Audience
    let tokens: TokenService
    let accounts: ContentServerAccounts
    let devices: DeviceStore
    let sessions: AdminSessions
    let origin: FleetOrigin
    let clock: any HostClock

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        switch audience {
        case .admins, .scrapers:
            if let header = request.headers[.authorization] {
                try await checkBearer(header)
            } else if let session = try await session(of: request) {
                context.fleetSession = session
            } else {
                throw ContentAPIError.unauthorized(
                    "sign in: an admin's session or an Authorization: Bearer access token of an admin user is needed")
            }
            return try await next(request, context)
        case .pages:
            guard let session = try await session(of: request) else {
                var headers = HTTPFields()
                headers[.location] = "/fleet/login"
                headers[.cacheControl] = "no-store"
                return Response(status: .seeOther, headers: headers)
            }
            context.fleetSession = session
            return try await next(request, context)
        case .actions, .logout:
            guard let session = try await session(of: request) else {
                if audience == .logout { throw ContentAPIError.forbidden("no session to end") }
                throw ContentAPIError.unauthorized("sign in first: this needs an admin's session")
            }
            var request = request
            try await Self.checkCSRF(&request, expected: session.csrf, origin: origin)
            context.fleetSession = session
            return try await next(request, context)
        }
    }

    /// Refuses (403) a request whose `Origin` is foreign or whose CSRF token (header
    /// `X-CSRF-Token`, else the form field `csrf`) is missing or not `expected`. The form's body
    /// is collected, so the route can still read it.
    static func checkCSRF(_ request: inout Request, expected: String, origin: FleetOrigin) async throws {
        guard origin.admits(request) else { throw ContentAPIError.forbidden("the request comes from another site (Origin)") }
        var presented = request.headers[csrfHeader]
        if presented == nil, request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: maxFormSize)
            } catch {
                throw ContentAPIError.badRequest("the form is larger than \(maxFormSize) bytes")
            }
            presented = FleetFilter.pairs(String(buffer: body)).last { $0.0 == "csrf" }?.1
        }
        guard let presented, ConstantTime.equal(presented, expected) else {
            throw ContentAPIError.forbidden("the request's CSRF token is missing or wrong; reload the page")
        }
    }

    /// `X-CSRF-Token`.
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    /// The admin session of the request's `sb_fleet` cookie, if live.
    private func session(of request: Request) async throws -> AdminSessions.Session? {
        guard let cookie = request.cookies[AdminSessions.cookieName]?.value else { return nil }
        do {
            return try await sessions.session(cookie: cookie)
        } catch {
            throw ContentAPIError.unavailable("the hub cannot read its sessions now; try again", retryAfter: 1)
        }
    }

    private func checkBearer(_ header: String) async throws {
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
