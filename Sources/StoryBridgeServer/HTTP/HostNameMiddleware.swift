import Hummingbird
import StoryBridge

/// Refuses, before anything else is read, every request whose `Host` header is not one of the
/// host's names (see ``AllowedHostNames``): HTTP requests get 421 with a message; WebSocket
/// upgrades are not upgraded at all, so a page of another site never holds a socket.
struct HostNameMiddleware<Context: RequestContext>: RouterMiddleware {
    let names: AllowedHostNames
    let refusals: RefusalLog

    @concurrent func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let refusal = names.check(authority: request.head.authority) {
            refusals.record(refusal, request)
            throw refusal
        }
        return try await next(request, context)
    }
}
