import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import StoryBridge
import StoryBridgeFleet

/// `GET /v1/fleet/connect` (docs/design/FLEET.md §4): a kiosk's WebSocket.
///
/// A request without the upgrade is answered by an HTTP route of the same path with the refusal
/// as JSON (401 none, malformed, unknown or revoked; 403 a scraper's token; 400 a kiosk's token).
/// An upgrade is always accepted, and a refusal closes the socket at once with 4000 + that status
/// (4401, 4403; 4421 for a foreign `Host`) and the same message. Otherwise the hub sends a challenge, checks the hello (the host id is the public key's fingerprint, the signature
/// covers the nonce and this hub's origin, and the device is bound to the first host id it
/// proved: else close 4403), answers `welcome`, and then acknowledges each beat.
struct FleetConnectRoute: Sendable {
    let store: DeviceStore
    let registry: FleetRegistry
    let clock: any HostClock
    let scheme: String
    /// The names the server answers to (a foreign `Host` is closed with 4421).
    let hostNames: AllowedHostNames
    let logger: Logger
    /// The hub's series (beats, refusals).
    let metrics: FleetMetrics
    /// How long the hub waits for the hello.
    var helloTimeout: Duration = .seconds(10)

    /// Why a connect request is refused before the upgrade.
    enum Refusal: Error, Equatable {
        case missingToken
        case unknownToken
        case revoked
        case scraper
        case storage(String)

        var status: HTTPResponse.Status {
            switch self {
            case .missingToken, .unknownToken, .revoked: .unauthorized
            case .scraper: .forbidden
            case .storage: .serviceUnavailable
            }
        }

        /// The `reason` label of `storybridge_fleet_refused_connections_total` (none for a storage failure).
        var reason: FleetMetrics.RefusalReason? {
            switch self {
            case .missingToken, .unknownToken, .scraper: .token
            case .revoked: .revoked
            case .storage: nil
            }
        }

        var message: String {
            switch self {
            case .missingToken: "a device token is needed: Authorization: Bearer <token>"
            case .unknownToken: "the device token is not known"
            case .revoked: "the device token was revoked"
            case .scraper: "a scraper token cannot connect as a kiosk"
            case .storage: "the hub cannot read its devices now; try again"
            }
        }
    }

    /// The kiosk device the request's bearer token stands for.
    func admit(_ request: Request) async -> Result<Device, Refusal> {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return .failure(.missingToken) }
        let verdict: DeviceVerdict
        do {
            verdict = try await store.verifyAsync(token: String(header.dropFirst("Bearer ".count)))
        } catch {
            logger.error("fleet: cannot verify a device token", metadata: ["error": "\(error)"])
            return .failure(.storage("\(error)"))
        }
        switch verdict {
        case .malformed, .unknown: return .failure(.unknownToken)
        case .revoked: return .failure(.revoked)
        case .valid(let device) where device.kind == .scraper: return .failure(.scraper)
        case .valid(let device): return .success(device)
        }
    }

    /// The HTTP route that answers every connect request the WebSocket router did not upgrade.
    func registerRefusals(on router: Router<ContentRequestContext>) {
        router.get(RouterPath(FleetWire.connectPath)) { request, _ -> Response in
            switch await admit(request) {
            case .failure(let refusal):
                return JSONReply.response(status: refusal.status, ["error": refusal.message])
            case .success:
                return JSONReply.response(status: .badRequest, ["error": "this route is a WebSocket: send Upgrade: websocket"])
            }
        }
    }

    /// The WebSocket route. Every upgrade of the path is accepted and any refusal is the socket's
    /// close, code 4000 + the HTTP status, with the reason: Hummingbird answers a declined upgrade
    /// with an empty 400 that names nothing, and a kiosk reads a close code as well as a status.
    func registerSocket(on router: Router<FleetSocketContext>) {
        router.ws(RouterPath(FleetWire.connectPath)) { inbound, outbound, context in
            context.requestContext.slot.release()
            switch hostNames.verdict(authority: context.request.head.authority) {
            case .allowed: break
            case .missing:
                try await outbound.close(.unknown(4421), reason: "no Host header")
                return
            case .foreign:
                try await outbound.close(.unknown(4421), reason: "this server does not answer to that Host name")
                return
            }
            switch await admit(context.request) {
            case .failure(let refusal):
                if let reason = refusal.reason { metrics.refused(reason) }
                try await outbound.close(.unknown(UInt16(4000 + refusal.status.code)), reason: refusal.message)
            case .success(let device):
                let origin = Self.origin(scheme: scheme, authority: context.request.head.authority)
                try await serve(device, origin: origin, inbound: inbound, outbound: outbound)
            }
        }
    }

    /// `scheme://host:port` of the hub as the kiosk addressed it (the `Host` header, checked by the
    /// host-name middleware), with the scheme's default port written out.
    static func origin(scheme: String, authority: String?) -> String {
        let authority = (authority ?? "").lowercased()
        let hasPort: Bool
        if authority.hasPrefix("[") {
            hasPort = authority.range(of: "]:") != nil
        } else {
            hasPort = authority.contains(":")
        }
        return "\(scheme)://\(authority)" + (hasPort ? "" : (scheme == "https" ? ":443" : ":80"))
    }

    private func serve(
        _ device: Device, origin: String, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async throws {
        let connection = KioskConnection(deviceId: device.id, outbound: outbound)
        let nonce = Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max) })
        try await connection.send(
            .challenge(HubChallenge(nonce: nonce, hub: "storybridge \(StoryBridgeVersion.current)", serverTime: clock.now)))
        var messages = inbound.messages(maxSize: FleetWire.maxKioskFrame).makeAsyncIterator()
        guard let hello = try await nextHello(&messages, connection) else {
            await connection.close(code: FleetWire.CloseCode.forbidden, reason: "the first message must be a hello")
            return
        }
        if let refusal = hello.refusal(nonce: nonce, hubOrigin: origin) {
            logger.notice("fleet: hello refused", metadata: ["device": "\(device.id)", "reason": "\(refusal)"])
            metrics.refused(.signature)
            await connection.close(code: FleetWire.CloseCode.forbidden, reason: refusal)
            return
        }
        guard try await store.bind(deviceId: device.id, hostId: hello.hostId) else {
            metrics.refused(.hostId)
            logger.notice("fleet: hello from another host refused", metadata: ["device": "\(device.id)", "host": "\(hello.hostId)"])
            await connection.close(
                code: FleetWire.CloseCode.forbidden, reason: "this device token belongs to another host (its host key differs)")
            return
        }
        await registry.connected(connection, hello: hello)
        defer { Task { [registry] in await registry.disconnected(connection) } }
        try await connection.send(.welcome(Welcome(device: device.id)))
        defer { connection.screenshots.close("the kiosk disconnected") }
        while let message = try await messages.next() {
            guard case .text(let text) = message else {
                // A binary frame is the PNG of the screenshot answer before it.
                if case .binary(let buffer) = message { connection.screenshots.receivedBinary(Data(buffer.readableBytesView)) }
                continue
            }
            let frame = Data(text.utf8)
            let decoded: FleetMessage
            do {
                decoded = try FleetWire.decode(frame)
            } catch {
                logger.notice("fleet: a frame was ignored", metadata: ["device": "\(device.id)", "reason": "\(error)"])
                continue
            }
            switch decoded {
            case .beat(let beat):
                metrics.beatReceived(bytes: text.utf8.count)
                await registry.beat(beat, json: frame, from: connection)
                try await connection.send(.ack(Ack(seq: beat.seq)))
            case .bye:
                await registry.bye(from: connection)
            case .screenshotResult(let result):
                connection.screenshots.answered(
                    id: result.id, width: result.width, height: result.height,
                    takenAt: result.takenAt.map { $0.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) },
                    error: result.error)
            default:
                continue
            }
        }
    }

    /// The first text frame as a hello, or nil when the kiosk sends something else; a kiosk that
    /// sends nothing within ``helloTimeout`` is closed (4403) by a watchdog, which ends the wait.
    private func nextHello(
        _ messages: inout WebSocketInboundMessageStream.AsyncIterator, _ connection: KioskConnection
    ) async throws -> KioskHello? {
        let timeout = helloTimeout
        let watchdog = Task { [clock] in
            try? await clock.sleep(for: timeout)
            if !Task.isCancelled {
                await connection.close(code: FleetWire.CloseCode.forbidden, reason: "no hello within \(timeout.components.seconds) s")
            }
        }
        defer { watchdog.cancel() }
        guard case .text(let text) = try await messages.next(), case .hello(let hello) = try? FleetWire.decode(Data(text.utf8))
        else { return nil }
        return hello
    }
}
