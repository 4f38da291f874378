import Foundation
import GRDB
import Hummingbird
import StoryBridge
import StoryBridgeFleet

/// The fleet's JSON routes (docs/design/FLEET.md §7.1), beside the `/v1` content group (not
/// under its bearer middleware) and behind ``FleetAuthMiddleware`` for admins:
///
/// - `GET /v1/fleet[?state=…&label=KEY:VALUE]`: `{"generatedAt", "kiosks": [...]}`, kiosks by name.
/// - `GET /v1/fleet/kiosks/{id}`: one kiosk with its `lastBeat` and `hello`; 404 for an id that
///   is no kiosk.
/// - `GET /v1/fleet/kiosks/{id}/history[?hours=24]`: `{"stateChanges", "syncRuns", "minutes"}`.
/// - `GET /v1/fleet/kiosks/{id}/checkpoints`: the audit-log checkpoints its beats carried (the
///   newest 1,000), oldest first, as the JSON array of signed documents that `storybridge audit
///   verify --checkpoints FILE` reads.
///
/// Dates are ISO 8601 with milliseconds, as on the kiosks' socket.
struct FleetAPIRoutes: Sendable {
    let store: DeviceStore
    let registry: FleetRegistry
    let clock: any HostClock

    /// Registers the routes on `router`, each behind `auth`.
    func register(on router: Router<ContentRequestContext>, auth: FleetAuthMiddleware) {
        let group = router.group("v1/fleet").add(middleware: auth)
        group.get { request, _ -> Response in
            let filter = try Self.parse { () throws(FleetQueryError) in try FleetFilter(query: request.uri.query) }
            return Self.reply(FleetListView(generatedAt: clock.now, kiosks: try await kiosks(filter)))
        }
        group.get("kiosks/:id") { _, context -> Response in
            let (device, kiosk) = try await kiosk(context)
            return Self.reply(FleetKioskView(device: device, kiosk: kiosk, withDetail: true))
        }
        group.get("kiosks/:id/history") { request, context -> Response in
            let hours = try Self.parse { () throws(FleetQueryError) in try FleetHistoryView.hours(query: request.uri.query) }
            let (device, _) = try await kiosk(context)
            let start = clock.now.addingTimeInterval(-Double(hours) * 3600)
            let history = try await store.database.pool.read { db in try FleetHistoryView.read(device.id, since: start, db) }
            return Self.reply(history)
        }
        group.get("kiosks/:id/checkpoints") { _, context -> Response in
            let (device, _) = try await kiosk(context)
            let documents = try await store.database.pool.read { db in
                try String.fetchAll(
                    db, sql: "SELECT document FROM kiosk_checkpoint WHERE deviceId = ? ORDER BY hostId, sequence",
                    arguments: [device.id])
            }
            return Self.reply(JSONValue.array(documents.compactMap { try? JSONValue.parse($0) }))
        }
    }

    /// The kiosks `filter` admits, by name then id.
    func kiosks(_ filter: FleetFilter) async throws -> [FleetKioskView] {
        let devices = try await BlockingIO.run { [store] () throws(HubStoreError) in try store.list() }
        var views: [FleetKioskView] = []
        for device in devices where device.kind == .kiosk {
            let view = FleetKioskView(device: device, kiosk: await registry.kiosk(device.id), withDetail: false)
            if filter.admits(state: view.presence, labels: view.labels) { views.append(view) }
        }
        return views.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }

    /// Every kiosk device (revoked ones too), by name then id.
    func kioskDevices() async throws -> [Device] {
        let devices = try await BlockingIO.run { [store] () throws(HubStoreError) in try store.list() }
        return devices.filter { $0.kind == .kiosk }.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }

    /// The kiosk device named by the route's `id`, with what the registry knows of it; 404 otherwise.
    func kiosk(_ context: ContentRequestContext) async throws -> (Device, FleetRegistry.Kiosk?) {
        let id = context.parameters.get("id") ?? ""
        let devices = try await BlockingIO.run { [store] () throws(HubStoreError) in try store.list() }
        guard let device = devices.first(where: { $0.id == id && $0.kind == .kiosk }) else {
            throw ContentAPIError.notFound("no kiosk has the id \"\(id)\"")
        }
        return (device, await registry.kiosk(device.id))
    }

    private static func parse<T>(_ body: () throws(FleetQueryError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw ContentAPIError.badRequest(error.message)
        }
    }

    /// The JSON of `value`, dates with milliseconds.
    static func reply(_ value: some Encodable) -> Response {
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The fleet routes' JSON: sorted keys, dates with milliseconds.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(FleetWire.format(date))
        }
        return encoder
    }()
}

/// `{"generatedAt", "kiosks"}`.
struct FleetListView: Encodable, Sendable {
    var generatedAt: Date
    var kiosks: [FleetKioskView]
}
