import Foundation
import ServiceLifecycle
import StoryBridge
import StoryBridgeServer

// Serves one presentation folder with GreetingModule registered.
//   greeting-host <presentation folder> [port]    (port 0, the default here, picks a free port)
let arguments = CommandLine.arguments
guard arguments.count > 1, let port = arguments.count > 2 ? Int(arguments[2]) : 0 else {
    FileHandle.standardError.write(Data("usage: greeting-host <presentation folder> [port]\n".utf8))
    exit(64)
}
let folder = URL(fileURLWithPath: arguments[1])
let catalog = PresentationFolder.Catalog(id: 1, name: "My deck")
let presentation = try PresentationFolder.load(folder, catalog: catalog)

// The host keeps viewers, sessions and analytics in an SQLite file in a data folder of your choice.
let data = DataDirectory(FileManager.default.temporaryDirectory.appendingPathComponent("greeting-host"))
try data.prepare()
let host = StoryBridgeHost(
    library: PresentationLibrary([presentation]), database: try StoryBridgeDatabase(file: data.database))
try host.bridge.register(GreetingModule())

// 127.0.0.1 only; a fresh token each launch, which the served slides carry to their pages.
let configuration = ServerConfiguration(host: "127.0.0.1", port: port)
let services: [any Service] = [
    PresentationWatcherService(PresentationWatcher(folder: folder, catalog: catalog), host: host),  // live reload
    IdleSweepService(host: host),  // idle viewers leave memory; their sessions end by timeout
    GoodbyeService(),
]
try await StoryBridgeServer(host: host, configuration: configuration)
    .runUntilSignalled(alongside: services) { port in
        // Written at once: `print` is buffered until exit when standard output is not a terminal.
        FileHandle.standardOutput.write(Data("greeting-host: open http://127.0.0.1:\(port)/ in a browser\n".utf8))
    }
