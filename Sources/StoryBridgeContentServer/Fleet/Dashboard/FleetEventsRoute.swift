import Foundation
import Hummingbird
import StoryBridge

/// `GET /fleet/events` (docs/design/FLEET.md §6): the dashboard's server-sent events, for an
/// admin's session (or an admin's token).
///
/// - `snapshot`: every kiosk (revoked ones too; the page filters), at once.
/// - `rows`: the kiosks whose object changed, looked for every 250 ms of the hub's clock (only
///   kiosks the registry changed, or whose device row changed, are rendered again).
/// - every 15 s of the hub's clock a comment line, when the session is also looked at (without
///   prolonging it): one that has ended ends the stream with `event: logout`.
///
/// The data are the objects of `/v1/fleet` (`{"kiosks": [...]}`). With `?kiosk=ID` (the kiosk
/// page's `kiosk.js`) a stream renders and sends that kiosk only. At most 32 streams per session
/// (an admin's session cookie, or one bearer token) and 256 in all: beyond, 503 with `Retry-After`.
struct FleetEventsRoute: Sendable {
    let api: FleetAPIRoutes
    let sessions: AdminSessions
    let clock: any HostClock
    /// Counts the open streams (`storybridge_fleet_dashboard_streams`).
    let metrics: FleetMetrics
    /// How often the kiosks are compared with what was sent.
    var period: Duration = .milliseconds(250)
    /// How often a stream reads the device rows even when the registry saw no change.
    var devicesPeriod: Duration = .seconds(5)
    /// How often a stream sends a comment line and looks at its session.
    var keepAlive: Duration = .seconds(15)
    /// The streams open, per session and in all.
    var gate = FleetStreamGate()

    /// Registers the route behind `auth`.
    func register(on router: Router<ContentRequestContext>, auth: FleetAuthMiddleware) {
        router.group("fleet/events").add(middleware: auth).get { request, context -> Response in
            let cookie = context.fleetSession == nil ? nil : request.cookies[AdminSessions.cookieName]?.value
            let only = FleetFilter.pairs(request.uri.query).last { $0.0 == "kiosk" }?.1
            let ticket: FleetStreamGate.Ticket
            do throws(FleetStreamQuota.Refusal) {
                ticket = try gate.ticket(for: cookie.map { "session:" + $0 } ?? "bearer:" + (request.headers[.authorization] ?? ""))
            } catch {
                throw ContentAPIError.unavailable(error.message, retryAfter: 5)
            }
            var headers = HTTPFields()
            headers[.contentType] = "text/event-stream; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    // The place is held while the stream runs (and given back if it never does).
                    defer { withExtendedLifetime(ticket) {} }
                    try await stream(to: &writer, cookie: cookie, only: only)
                })
        }
    }

    private func stream(to writer: inout any ResponseBodyWriter, cookie: String?, only: String?) async throws {
        metrics.streamOpened()
        defer { metrics.streamClosed() }
        // What was sent per kiosk, and the device row and registry revision it was made from: a
        // kiosk whose row and revision are the same is not rendered again. Device rows are read
        // again when the registry says they may have changed, and every `devicesPeriod` besides.
        var sent: [String: Data] = [:]
        var madeFrom: [String: (device: Device, revision: Int)] = [:]
        var state = await api.registry.changes()
        var devices = try await api.kioskDevices()
        var devicesRead = clock.instant
        // The changed kiosks' objects as sent, each encoded once.
        var changed: [Data] = []
        func render() {
            for device in devices where only == nil || device.id == only {
                let revision = state.revisions[device.id] ?? 0
                if let earlier = madeFrom[device.id], earlier.revision == revision, earlier.device == device { continue }
                madeFrom[device.id] = (device, revision)
                let view = FleetKioskView(device: device, kiosk: state.kiosks[device.id], withDetail: false)
                let data = Self.encode(view)
                if sent[view.id] != data {
                    sent[view.id] = data
                    changed.append(data)
                }
            }
        }
        render()
        try await writer.write(Self.event("snapshot", changed))
        var lastLook = clock.instant
        while !Task.isCancelled {
            try await clock.sleep(for: period)
            changed = []
            let generation = state.devicesGeneration
            state = await api.registry.changes()
            if state.devicesGeneration != generation || devicesRead.duration(to: clock.instant) >= devicesPeriod {
                devices = try await api.kioskDevices()
                devicesRead = clock.instant
            }
            render()
            if !changed.isEmpty {
                try await writer.write(Self.event("rows", changed))
            }
            guard lastLook.duration(to: clock.instant) >= keepAlive else { continue }
            lastLook = clock.instant
            if let cookie, try await sessions.session(cookie: cookie, touch: false) == nil {
                try await writer.write(ByteBuffer(string: "event: logout\ndata: {}\n\n"))
                break
            }
            try await writer.write(ByteBuffer(string: ": still here\n\n"))
        }
        try await writer.finish(nil)
    }

    private static func encode(_ view: FleetKioskView) -> Data {
        (try? FleetAPIRoutes.encoder.encode(view)) ?? Data()
    }

    /// `event: NAME` and one `data:` line with `{"kiosks": [...]}` of the kiosks' objects as
    /// encoded (JSON has no raw line breaks).
    private static func event(_ name: String, _ kiosks: [Data]) -> ByteBuffer {
        var buffer = ByteBuffer(string: "event: \(name)\ndata: {\"kiosks\":[")
        for (index, kiosk) in kiosks.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            buffer.writeBytes(kiosk)
        }
        buffer.writeStaticString("]}\n\n")
        return buffer
    }
}
