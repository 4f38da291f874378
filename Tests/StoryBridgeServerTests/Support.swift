import Foundation
import Logging
import StoryBridge
import StoryBridgeTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The repository's folder, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The bundled demo presentation.
let demoFolder = repositoryRoot.appendingPathComponent("Fixtures/presentations/demo")

/// A presentation folder written by the test.
func makePresentationFolder(_ files: [String: String]) throws -> URL {
    try scratchFolder("sb-server", files: files)
}

/// A database in a new, prepared data folder under the temporary directory, named `PREFIX-UUID`.
func freshDatabase(_ prefix: String) throws -> StoryBridgeDatabase {
    let directory = DataDirectory(FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)"))
    try directory.prepare()
    return try StoryBridgeDatabase(file: directory.database)
}

/// A host serving `presentation` as deck 1 from a new data directory in `folder` (the caller
/// removes it), reading `clock` and logging only critical messages.
func quietHost(serving presentation: URL, in folder: URL, clock: any HostClock = SystemHostClock()) throws -> StoryBridgeHost {
    let directory = DataDirectory(folder)
    try directory.prepare()
    var logger = Logger(label: "storybridge.test")
    logger.logLevel = .critical
    return StoryBridgeHost(
        library: PresentationLibrary([try PresentationFolder.load(presentation, catalog: .init(id: 1))]),
        database: try StoryBridgeDatabase(file: directory.database), clock: clock, logger: logger)
}

/// A plain HTTP GET on loopback: status, headers and body.
func httpGet(_ url: String, headers: [String: String] = [:]) async throws -> (status: Int, headers: [String: String], body: Data) {
    var request = URLRequest(url: URL(string: url)!)
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
    let (data, response) = try await session.data(for: request)
    let http = response as! HTTPURLResponse
    var fields: [String: String] = [:]
    for (key, value) in http.allHeaderFields { fields[String(describing: key).lowercased()] = String(describing: value) }
    return (http.statusCode, fields, data)
}

/// Keeps redirects visible to the test.
final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// Runs `body` against a started host and stops it afterwards.
func withHost<T>(
    folders: [URL] = [demoFolder], identity: HostIdentity = HostIdentity(),
    _ body: (TestHost) async throws -> T
) async throws -> T {
    let host = try await TestHost.start(presentationFolders: folders, identity: identity)
    return try await host.use(body)
}

/// `folder`'s files in a new zip at `zip` (default: `deck.zip` in a fresh temporary folder), paths
/// relative to `folder`.
func zipFolder(_ folder: URL, to zip: URL? = nil) throws -> URL {
    let zip =
        try zip
        ?? {
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("sb-cli-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            return scratch.appendingPathComponent("deck.zip")
        }()
    let writer = try ZipWriter(path: zip.path)
    let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
    while let file = enumerator?.nextObject() as? URL {
        guard (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
        let relative = String(file.standardizedFileURL.path.dropFirst(folder.standardizedFileURL.path.count + 1))
        try writer.add(relative, data: try Data(contentsOf: file))
    }
    try writer.close()
    return zip
}
