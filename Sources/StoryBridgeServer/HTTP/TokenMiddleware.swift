import Hummingbird

/// Lets through only requests that carry the launch token (`?token=`), compared in constant time.
///
/// A plain HTTP request without it is answered 403. A WebSocket upgrade without it is still
/// upgraded, with the refusal recorded in the context: the route then closes the socket at once
/// with code 4403 and the reason, which the page can read (it cannot read an HTTP status).
struct TokenMiddleware: RouterMiddleware {
    typealias Context = HostRequestContext

    let token: LaunchToken
    let refusals: RefusalLog

    @concurrent func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard context.refusal == nil, !token.matches(request.uri.queryParameters["token"]) else {
            return try await next(request, context)
        }
        refusals.record(.badToken, request)
        guard request.isWebSocketUpgrade else { throw RequestRefusal.badToken }
        var refused = context
        refused.refusal = .badToken
        return try await next(request, refused)
    }
}

extension Router where Context == HostRequestContext {
    /// The routes under `path` (`/__storybridge/…`), each behind the launch token (``TokenMiddleware``).
    func tokenGuarded(_ path: String, token: LaunchToken, refusals: RefusalLog) -> RouterGroup<HostRequestContext> {
        group(RouterPath(String(path.dropFirst()))).add(middleware: TokenMiddleware(token: token, refusals: refusals))
    }
}

/// Answers 405 to any method but GET and HEAD: the host serves content, it takes none. The
/// exceptions are the Story context endpoint (``StoryContextRoutes``), the inspector's
/// Record/Stop (``RecordingRoutes``), Rollback/Unpin (``RevisionRoutes``) and the OCE player's
/// buttons (``PlayerButtonRoutes``), all behind the launch token.
struct ReadOnlyMiddleware<Context: RequestContext>: RouterMiddleware {
    @concurrent func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard
            request.method == .get || request.method == .head || request.uri.path == StoryContextRoutes.path
                || request.uri.path == RecordingRoutes.path || RevisionRoutes.takesWrites(request.uri.path)
                || PlayerButtonRoutes.takesWrites(request.uri.path)
        else {
            throw HostHTTPError(.methodNotAllowed, "Only GET and HEAD are served")
        }
        return try await next(request, context)
    }
}
