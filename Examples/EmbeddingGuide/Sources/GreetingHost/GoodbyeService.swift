import Foundation
import ServiceLifecycle

/// A service of your own, run beside the server: it waits for the graceful shutdown (Ctrl-C or
/// SIGTERM) and says so.
struct GoodbyeService: Service {
    func run() async throws {
        try? await gracefulShutdown()
        FileHandle.standardOutput.write(Data("greeting-host: stopping\n".utf8))
    }
}
