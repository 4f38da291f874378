import Foundation
import GRDB
import Logging
import StoryBridge

func temporaryFolder(_ name: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-bench-\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// `count` setCustomEvent requests through the router and the CustomEvents module: each one
/// committed to SQLite before its answer, as in `serve`.
func modulePath(count: Int) async throws -> Duration {
    let folder = try temporaryFolder("module")
    defer { try? FileManager.default.removeItem(at: folder) }
    let presentationFolder = folder.appendingPathComponent("deck")
    try FileManager.default.createDirectory(at: presentationFolder, withIntermediateDirectories: true)
    try "<html></html>".write(to: presentationFolder.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
    let presentation = try PresentationFolder.load(presentationFolder, catalog: .init(id: 1))
    var logger = Logger(label: "bench")
    logger.logLevel = .critical
    let host = StoryBridgeHost(
        library: PresentationLibrary([presentation]), database: try StoryBridgeDatabase(file: folder.appendingPathComponent("db.sqlite")),
        logger: logger)
    let viewer = await host.viewers.viewer(id: "bench")
    await host.pageLoaded(viewer, presentationId: 1, slide: "index.html", pageLoad: "1")
    let context = host.context(for: viewer)
    let clock = ContinuousClock()
    return try await clock.measure {
        for index in 0..<count {
            let response = await host.bridge.handle(
                BridgeRequest(
                    command: "setCustomEvent", data: ["key": .string("key-\(index)"), "value": .string("value \(index)")], guid: "G\(index)"
                ),
                context: context)
            guard response?.status == .success else { throw CocoaError(.coderInvalidValue) }
        }
    }
}

/// The same rows inserted directly: one prepared INSERT per row, each in its own transaction
/// (as durable as the module path), same schema, same journal settings.
func plainInserts(count: Int) throws -> Duration {
    let folder = try temporaryFolder("plain")
    defer { try? FileManager.default.removeItem(at: folder) }
    let database = try StoryBridgeDatabase(file: folder.appendingPathComponent("db.sqlite"))
    let session = UUID().uuidString.lowercased()
    try database.pool.write { db in
        try db.execute(
            sql: """
                INSERT INTO session (id, presentationId, viewerId, userId, created, timeZone, latitude, longitude, address, updated)
                VALUES (?, 1, 'bench', 'u', '2026-01-01T00:00:00.000Z', 0, 0, 0, '', '2026-01-01T00:00:00.000Z')
                """, arguments: [session])
    }
    let clock = ContinuousClock()
    return try clock.measure {
        for index in 0..<count {
            try database.pool.write { db in
                try db.cachedStatement(
                    sql: """
                        INSERT INTO customEvent (id, sessionId, presentationId, userId, key, value, created, timeZone, latitude, longitude)
                        VALUES (?, ?, 1, 'u', ?, ?, '2026-01-01T00:00:00.000Z', 0, 0, 0)
                        """
                ).execute(arguments: [UUID().uuidString, session, "key-\(index)", "value \(index)"])
            }
        }
    }
}
