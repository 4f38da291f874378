import Hummingbird
import NIOCore

/// The request context of the content server: the core storage plus the claims of the bearer
/// token, set by ``BearerTokenMiddleware`` on the routes it guards.
struct ContentRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The verified access token's claims; `nil` on routes without authentication.
    package var claims: AccessTokenClaims?
    /// The event loop of the request's connection (a deliberately cut blob response waits on it
    /// until its last bytes are on the socket).
    package let eventLoop: any EventLoop
    /// The IP address of the client, for the limit on failed logins.
    let remoteAddress: String?
    /// The fleet admin's session, set by ``FleetAuthMiddleware`` when the request carries one.
    var fleetSession: AdminSessions.Session?

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        claims = nil
        eventLoop = source.channel.eventLoop
        remoteAddress = source.channel.remoteAddress?.ipAddress
        fleetSession = nil
    }
}
