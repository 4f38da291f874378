import ClientCardModule
import Foundation
import Logging
import StoryBridge
import StoryBridgeServer

// Embeds the storybridge runtime, registers ClientCardModule and serves a presentation.
//   swift run custom-module-example [presentation folder] [port]
let arguments = CommandLine.arguments
let folder = URL(fileURLWithPath: arguments.count > 1 ? arguments[1] : "Fixtures/presentations/demo")
let port = arguments.count > 2 ? Int(arguments[2]) ?? 8080 : 8080

let presentation = try PresentationFolder.load(folder, catalog: .init(id: 1, name: "Demo"))
let data = FileManager.default.temporaryDirectory.appendingPathComponent("custom-module-example")
let directory = DataDirectory(data)
try directory.prepare()
let host = StoryBridgeHost(
    library: PresentationLibrary([presentation]), database: try StoryBridgeDatabase(file: directory.database))
try host.bridge.register(ClientCardModule(clients: [42: "ACME Pharma", 7: "Globex"]))

try await StoryBridgeServer(host: host, configuration: ServerConfiguration(port: port)).runUntilSignalled { port in
    print("custom-module-example: http://127.0.0.1:\(port)/  (try StoryCLM.SendCommand('getClientCard', {clientId: 42}, cb))")
}
