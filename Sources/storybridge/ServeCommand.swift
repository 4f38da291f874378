import ArgumentParser
import Foundation
import Logging
import StoryBridge
import StoryBridgeServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a presentation and answer its bridge calls.",
        discussion: """
            Serves the presentation in PATH (a folder whose root holds index.html) at http://HOST:PORT/. \
            Every root *.html slide gets the storybridge client injected, so both content that bundles the \
            original storyclm.js and content written against storybridge's js/storyclm.js work unmodified. \
            Open the printed URL in any browser. Ctrl-C stops the server.
            """
    )

    @Argument(help: "The presentation folder (holding index.html).")
    var path: String

    @Option(help: "Address to bind.")
    var host: String?

    @Option(help: "Port to listen on; 0 picks a free port.")
    var port: Int?

    @Option(help: "Presentation id (presId) given to the presentation.")
    var id: Int = 1

    @Option(help: "Presentation name (default: the folder name).")
    var name: String?

    @Option(help: "Seconds a module may take before the host answers a 504 Failure (default 10).")
    var deadline: Double?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    @OptionGroup(title: "Identity and configuration")
    var identity: IdentityOptions

    func run() async throws {
        let configuration = try identity.resolve()
        let catalog = PresentationFolder.Catalog(id: id, name: name)
        let presentation: Presentation
        do {
            presentation = try PresentationFolder.load(URL(fileURLWithPath: path), catalog: catalog)
        } catch {
            throw ValidationError(error.description)
        }
        var logger = Logger(label: "storybridge")
        logger.logLevel = logLevel
        let deadlineSeconds = deadline ?? configuration.bridge.deadlineSeconds ?? 10
        guard deadlineSeconds > 0 else { throw ValidationError("--deadline must be more than 0 seconds") }
        let host = StoryBridgeHost(
            library: PresentationLibrary([presentation]), identity: configuration.identity,
            defaultDeadline: .milliseconds(Int(deadlineSeconds * 1000)), logger: logger)
        let bindHost = self.host ?? configuration.server.host ?? "127.0.0.1"
        let bindPort = port ?? configuration.server.port ?? 8080
        guard (0...65535).contains(bindPort) else { throw ValidationError("--port must be between 0 and 65535") }
        let server = StoryBridgeServer(
            host: host,
            configuration: ServerConfiguration(host: bindHost, port: bindPort, defaultPresentationId: presentation.id))
        try await server.runUntilSignalled { boundPort in
            let displayHost = bindHost.contains(":") ? "[\(bindHost)]" : bindHost
            Terminal.say(
                """
                storybridge \(StoryBridgeVersion.current): serving "\(presentation.name)" \
                (presentation \(presentation.id), \(presentation.slides.count) slides) from \(presentation.root.path)
                  Open http://\(displayHost):\(boundPort)/ in a browser.
                  Press Ctrl-C to stop.
                """)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
