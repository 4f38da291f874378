import Foundation
import Hummingbird
import Logging
import NIOCore

/// The static baseline of the browser benchmark: a plain Hummingbird `FileMiddleware` on
/// 127.0.0.1 (port 0) serving a folder as it is, in this process, with the cache policy the host
/// gives presentation files (`no-cache`, revalidated by ETag).
final class StaticFileServer: Sendable {
    let port: Int
    private let task: Task<Void, any Error>

    private init(port: Int, task: Task<Void, any Error>) {
        self.port = port
        self.task = task
    }

    var base: String { "http://127.0.0.1:\(port)" }

    static func start(folder: URL) async throws -> StaticFileServer {
        var logger = Logger(label: "storybridge-bench.static")
        logger.logLevel = .error
        let router = Router()
        router.add(
            middleware: FileMiddleware(
                folder.path, cacheControl: CacheControl([(MediaType(type: .any), [.noCache])]), searchForIndexHtml: false,
                logger: logger))
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            },
            logger: logger)
        let task = Task { try await application.runService(gracefulShutdownSignals: []) }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw CocoaError(.fileReadUnknown)
        }
        return StaticFileServer(port: port, task: task)
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}
