import Foundation
import GRDB
import Hummingbird
import StoryBridge

/// The fleet's login, logout and overview page (docs/design/FLEET.md §5.4, §5.5):
///
/// - `GET /fleet/login`: the form, with a fresh `sb_fleet_login` cookie whose value the form
///   carries too (double submit).
/// - `POST /fleet/login`: the form's token must equal the cookie and the `Origin`, when sent, be
///   the server's (else 403 and a fresh form); failed logins go through the server's
///   ``LoginThrottle`` (429 with `Retry-After` once used up); wrong credentials 401, a user who
///   is not admin 403, both with the form again; success sets `sb_fleet` (`HttpOnly`,
///   `SameSite=Strict`, `Secure` over TLS) and answers 303 to `/fleet`.
/// - `POST /fleet/logout` (session and CSRF): ends the session, 303 to `/fleet/login`.
/// - `GET /fleet` (session, else 303 to the login): the kiosks the query's filter admits.
/// - `GET /fleet/kiosks/{id}` (session): one kiosk's page (``FleetKioskPage``), 404 for an id that
///   is no kiosk; `GET /fleet/kiosks/{id}/plot.svg`: its ``HistoryPlot`` of the last 24 hours.
struct FleetPageRoutes: Sendable {
    let sessions: AdminSessions
    let accounts: ContentServerAccounts
    let throttle: LoginThrottle
    let origin: FleetOrigin
    let api: FleetAPIRoutes
    let clock: any HostClock

    /// The login form's cookie.
    static let loginCookie = "sb_fleet_login"

    /// Registers the routes; `pages` and `logout` are the middlewares of those kinds.
    func register(on router: Router<ContentRequestContext>, pages: FleetAuthMiddleware, logout: FleetAuthMiddleware) {
        router.get("fleet/login") { _, _ -> Response in
            form(status: .ok, problem: nil)
        }
        router.post("fleet/login") { request, context -> Response in
            try await login(request, context)
        }
        router.group("fleet/logout").add(middleware: logout).post { request, _ -> Response in
            if let cookie = request.cookies[AdminSessions.cookieName]?.value { try await sessions.end(cookie: cookie) }
            var headers = HTTPFields()
            headers[.setCookie] = cookie(AdminSessions.cookieName, value: "", maxAge: 0)
            return FleetHTML.redirect(to: "/fleet/login", headers: headers)
        }
        router.group("fleet").add(middleware: pages).get { request, context -> Response in
            let filter: FleetFilter
            do throws(FleetQueryError) {
                filter = try FleetFilter(query: request.uri.query)
            } catch {
                throw ContentAPIError.badRequest(error.message)
            }
            guard let session = context.fleetSession else { return FleetHTML.redirect(to: "/fleet/login") }
            let page = FleetOverviewPage(
                username: session.username, csrf: session.csrf, kiosks: try await api.kiosks(filter), now: clock.now)
            return FleetHTML.response(page.html)
        }
        registerKioskPages(on: router, pages: pages)
    }

    /// Registers the kiosk page and its plot behind `pages`.
    private func registerKioskPages(on router: Router<ContentRequestContext>, pages: FleetAuthMiddleware) {
        let group = router.group("fleet/kiosks").add(middleware: pages)
        group.get(":id") { _, context -> Response in
            guard let session = context.fleetSession else { return FleetHTML.redirect(to: "/fleet/login") }
            let (device, kiosk) = try await api.kiosk(context)
            let now = clock.now
            let (history, checkpoint, screenshot) = try await api.store.database.pool.read { db in
                let history = try FleetHistoryView.read(device.id, since: now.addingTimeInterval(-24 * 3600), db)
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT sequence, position, receivedAt FROM kiosk_checkpoint WHERE deviceId = ? ORDER BY sequence DESC LIMIT 1",
                    arguments: [device.id])
                // The last screenshot's facts, not its PNG (the page's <img> fetches that).
                let shot = try Row.fetchOne(
                    db, sql: "SELECT takenAt, width, height, receivedAt FROM kiosk_screenshot WHERE deviceId = ?", arguments: [device.id])
                return (
                    history,
                    row.map { (sequence: $0["sequence"] as Int, position: $0["position"] as Int, receivedAt: $0["receivedAt"] as Date) },
                    shot.map {
                        FleetKioskPage.StoredScreenshot(
                            takenAt: $0["takenAt"], width: $0["width"], height: $0["height"], receivedAt: $0["receivedAt"])
                    }
                )
            }
            let page = FleetKioskPage(
                username: session.username, csrf: session.csrf, kiosk: FleetKioskView(device: device, kiosk: kiosk, withDetail: true),
                history: history, checkpoint: checkpoint, screenshot: screenshot, now: now)
            return FleetHTML.response(page.html)
        }
        group.get(":id/plot.svg") { _, context -> Response in
            let (device, _) = try await api.kiosk(context)
            let end = clock.now
            let start = end.addingTimeInterval(-24 * 3600)
            let history = try await api.store.database.pool.read { db in try FleetHistoryView.read(device.id, since: start, db) }
            let plot = HistoryPlot(minutes: history.minutes, syncRuns: history.syncRuns, start: start, end: end, timeZone: .current)
            var headers = HTTPFields()
            headers[.contentType] = "image/svg+xml; charset=utf-8"
            headers[.cacheControl] = "no-store"
            headers[.xContentTypeOptions] = "nosniff"
            headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: plot.svg)))
        }
    }

    private func login(_ request: Request, _ context: ContentRequestContext) async throws -> Response {
        let fields: [String: String]
        do {
            fields = try await TokenRequestForm.fields(of: request)
        } catch {
            return form(status: .badRequest, problem: "the form could not be read; send it again")
        }
        let username = fields["username"] ?? ""
        guard origin.admits(request) else {
            return form(status: .forbidden, problem: "the form was sent from another site", username: username)
        }
        guard let presented = fields["csrf"], let expected = request.cookies[Self.loginCookie]?.value, !expected.isEmpty,
            ConstantTime.equal(presented, expected)
        else {
            return form(status: .forbidden, problem: "the form has expired; sign in again", username: username)
        }
        let now = clock.now
        let keys = LoginThrottle.keys(address: context.remoteAddress, form: ["grant_type": "password", "username": username])
        do {
            try throttle.check(keys, now: now)
        } catch {
            guard case .tooManyAttempts(let retryAfter) = error else { throw error }
            var headers = HTTPFields()
            headers[.retryAfter] = String(retryAfter)
            return form(
                status: .tooManyRequests, problem: "too many failed sign-ins; try again in \(retryAfter) s", username: username,
                headers: headers)
        }
        let password = fields["password"] ?? ""
        guard let user = accounts.users.first(where: { $0.username == username }), !password.isEmpty, await user.verifies(password)
        else {
            throttle.failed(keys, now: now)
            return form(status: .unauthorized, problem: "wrong user name or password", username: username)
        }
        throttle.succeeded(keys)
        guard user.isAdmin else {
            return form(status: .forbidden, problem: "this user may not see the fleet", username: username)
        }
        let (value, _) = try await sessions.start(username: user.username)
        var headers = HTTPFields()
        headers[.setCookie] = cookie(AdminSessions.cookieName, value: value)
        return FleetHTML.redirect(to: "/fleet", headers: headers)
    }

    /// The login form with a fresh double-submit token (set as the cookie too).
    private func form(
        status: HTTPResponse.Status, problem: String?, username: String = "", headers extra: HTTPFields = [:]
    ) -> Response {
        let token = AdminSessions.randomToken()
        var headers = extra
        headers[.setCookie] = cookie(Self.loginCookie, value: token, path: "/fleet/login")
        return FleetHTML.response(
            status: status, FleetLoginPage(loginToken: token, username: username, problem: problem).html, headers: headers)
    }

    /// `name=value; Path=…; HttpOnly; SameSite=Strict` (+ `Secure` over TLS, `Max-Age` when given).
    private func cookie(_ name: String, value: String, path: String = "/", maxAge: Int? = nil) -> String {
        "\(name)=\(value); Path=\(path)" + (maxAge.map { "; Max-Age=\($0)" } ?? "") + "; HttpOnly; SameSite=Strict"
            + (origin.secureCookies ? "; Secure" : "")
    }
}
