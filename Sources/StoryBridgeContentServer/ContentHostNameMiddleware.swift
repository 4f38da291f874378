import Hummingbird
import Logging
import StoryBridge

/// Refuses, before any route runs, every request whose `Host` header is not one of the server's
/// names (``AllowedHostNames``, as `serve` does): 421 with a JSON error. Without it a page of
/// another site whose name is made to resolve to the server (DNS rebinding) could ask for tokens
/// and fetch blobs.
struct ContentHostNameMiddleware: RouterMiddleware {
    typealias Context = ContentRequestContext
    let names: AllowedHostNames
    let logger: Logger

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        switch names.verdict(authority: request.head.authority) {
        case .allowed:
            return try await next(request, context)
        case .missing:
            logger.notice("request refused: no Host header", metadata: ["path": "\(request.uri.path)"])
            throw ContentAPIError.missingHost
        case .foreign(let name):
            logger.notice("request refused: foreign Host", metadata: ["host": "\(name)", "path": "\(request.uri.path)"])
            throw ContentAPIError.foreignHost(name)
        }
    }
}
