import Foundation
import GRDB
import Hummingbird
import StoryBridge
import StoryBridgeFleet

/// A kiosk's screenshot on the hub (docs/design/FLEET.md §9.3):
///
/// - `POST /fleet/kiosks/{id}/screenshot` (an admin's session and its CSRF token): asks the
///   kiosk over its open socket and answers within ``limit`` with `{takenAt, width, height,
///   url, receivedAt}` once the PNG is stored as the kiosk's last one (`receivedAt`: the hub's
///   time, which `/v1/fleet` then shows as the kiosk's `lastScreenshotAt`); 409 at once when the kiosk is not
///   connected or no `storybridge kiosk` is attached to its serve; 504 when no answer came in
///   time; 502 with the kiosk's reason otherwise.
/// - `GET /fleet/kiosks/{id}/screenshot.png` (session): the last one, kept across restarts; 404
///   when there is none.
struct FleetScreenshotRoutes: Sendable {
    let api: FleetAPIRoutes
    let clock: any HostClock

    /// The hub's limit, end to end (serve gives the kiosk 4 s of it).
    static let limit = Duration.seconds(5)

    private struct Taken: Encodable {
        var takenAt: String
        var width: Int
        var height: Int
        var url: String
        var receivedAt: String
    }

    /// Registers the routes: the request behind `actions`, the picture behind `pages`.
    func register(on router: Router<ContentRequestContext>, actions: FleetAuthMiddleware, pages: FleetAuthMiddleware) {
        router.group("fleet/kiosks").add(middleware: actions).post(":id/screenshot") { _, context -> Response in
            let (device, _) = try await api.kiosk(context)
            guard let connection = await api.registry.connection(device.id) else {
                return JSONReply.response(status: .conflict, ["error": "the kiosk is not connected to the hub"])
            }
            switch await connection.screenshot(within: Self.limit) {
            case .failed(let reason) where reason == ScreenshotOutcome.noKioskAttached:
                return JSONReply.response(status: .conflict, ["error": reason])
            case .failed(let reason) where reason.hasPrefix("no screenshot within"):
                return JSONReply.response(status: .gatewayTimeout, ["error": reason])
            case .failed(let reason):
                return JSONReply.response(status: .badGateway, ["error": reason])
            case .picture(let picture):
                // Whole milliseconds, as the database keeps it: `lastScreenshotAt` reads the same after a restart.
                let now = Date(timeIntervalSince1970: (clock.now.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
                try await api.store.database.pool.write { db in
                    try db.execute(
                        sql: """
                            INSERT INTO kiosk_screenshot (deviceId, png, width, height, takenAt, receivedAt) VALUES (?, ?, ?, ?, ?, ?)
                            ON CONFLICT(deviceId) DO UPDATE SET png = excluded.png, width = excluded.width, height = excluded.height,
                            takenAt = excluded.takenAt, receivedAt = excluded.receivedAt
                            """,
                        arguments: [device.id, picture.png, picture.width, picture.height, picture.takenAt, now])
                    try db.execute(sql: "UPDATE kiosk_state SET lastScreenshotAt = ? WHERE deviceId = ?", arguments: [now, device.id])
                }
                await api.registry.screenshotStored(device.id, at: now)
                return JSONReply.response(
                    Taken(
                        takenAt: picture.takenAt, width: picture.width, height: picture.height,
                        url: "/fleet/kiosks/\(device.id)/screenshot.png", receivedAt: FleetWire.format(now)))
            }
        }
        router.group("fleet/kiosks").add(middleware: pages).get(":id/screenshot.png") { _, context -> Response in
            let (device, _) = try await api.kiosk(context)
            let png = try await api.store.database.pool.read { db in
                try Data.fetchOne(db, sql: "SELECT png FROM kiosk_screenshot WHERE deviceId = ?", arguments: [device.id])
            }
            guard let png else { throw ContentAPIError.notFound("no screenshot of this kiosk yet") }
            var headers = HTTPFields()
            headers[.contentType] = "image/png"
            headers[.cacheControl] = "no-store"
            headers[.xContentTypeOptions] = "nosniff"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: png)))
        }
    }
}
