import AsyncHTTPClient
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOSSL
import StoryBridge
import Synchronization

/// One connection of the agent to the hub (docs/design/FLEET.md §4): the upgrade with the device
/// token, the challenge answered by a hello signed with the host key, then a beat every interval
/// (and at once on `beatNow`) while the hub's acknowledgements and requests are read.
struct FleetLink: Sendable {
    /// How a link ended.
    enum Outcome: Sendable, Equatable {
        /// It never got to the welcome; `retryAfter` from a 503.
        case failed(String, retryAfter: Duration?)
        /// The hub refused the token (401, 4401) or the host (4403).
        case refused(String)
        /// A welcomed connection ended.
        case closed(String)
    }

    let settings: FleetAgentSettings
    let hostKey: HostKey
    let hello: @Sendable (_ nonce: String) -> KioskHello
    let builder: BeatBuilder
    let clock: any HostClock
    let logger: Logger
    /// Called once the hub welcomed the hello.
    let welcomed: @Sendable () -> Void
    /// The `hubUnreachable` of the next beat.
    let unreachable: @Sendable (Date) -> Beat.HubUnreachable?
    /// The hub acknowledged a beat that carried `hubUnreachable`.
    let unreachableReported: @Sendable () -> Void
    /// Counts beats across connections.
    let sequence: Counter
    /// What the kiosk's browser shows (nil: no browser attached), for the hub's `screenshot`.
    let screenshot: (@Sendable () async -> ScreenshotOutcome?)?

    /// Connects, runs until the socket closes or `bye` is asked (by cancelling `stop`), and says how it ended.
    func run(stop: AsyncStream<Void>) async -> Outcome {
        var configuration = WebSocketClientConfiguration(
            maxFrameSize: FleetWire.maxHubFrame, autoPing: .enabled(timePeriod: .seconds(20)))
        configuration.additionalHeaders = [.authorization: "Bearer \(settings.token)"]
        let welcome = Counter()
        do {
            let tls = try tlsConfiguration()
            let close = try await WebSocketClient.connect(
                url: settings.socketURL, configuration: configuration, tlsConfiguration: tls, logger: logger
            ) { inbound, outbound, _ in
                var messages = inbound.messages(maxSize: FleetWire.maxHubFrame).makeAsyncIterator()
                guard case .text(let text) = try await messages.next(),
                    case .challenge(let challenge) = try FleetWire.decode(Data(text.utf8))
                else { return }
                try await outbound.write(.text(Self.text(.hello(hello(challenge.nonce)))))
                guard case .text(let reply) = try await messages.next(), case .welcome = try FleetWire.decode(Data(reply.utf8)) else {
                    return
                }
                welcome.set(1)
                welcomed()
                let (beatNow, beatNowContinuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
                let pendingUnreachable = Counter()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // The writer: a beat at once, then every interval or on beatNow.
                    group.addTask {
                        try await withThrowingTaskGroup(of: Void.self) { timers in
                            timers.addTask {
                                while !Task.isCancelled {
                                    beatNowContinuation.yield()
                                    try await clock.sleep(for: settings.interval)
                                }
                            }
                            for await _ in beatNow {
                                let seq = sequence.increment()
                                let outage = unreachable(clock.now)
                                let beat = await builder.build(seq: seq, hubUnreachable: outage)
                                let encoded = try FleetWire.encodeBeat(beat)
                                if outage != nil { pendingUnreachable.set(seq) }
                                try await outbound.write(.text(String(decoding: encoded.data, as: UTF8.self)))
                            }
                            timers.cancelAll()
                        }
                    }
                    // Graceful stop: bye (at most 1 s), then close.
                    group.addTask {
                        var asked = false
                        for await _ in stop {
                            asked = true
                            break
                        }
                        // The stream ended (the connection ended first): nothing to say goodbye on.
                        guard asked, !Task.isCancelled else { return }
                        try? await outbound.write(.text(Self.text(.bye(Bye()))))
                        try? await outbound.close(.normalClosure, reason: "shutdown")
                    }
                    while let message = try await messages.next() {
                        guard case .text(let text) = message, let decoded = try? FleetWire.decode(Data(text.utf8)) else { continue }
                        switch decoded {
                        case .ack(let ack):
                            if ack.seq == pendingUnreachable.value {
                                pendingUnreachable.set(0)
                                unreachableReported()
                            }
                        case .beatNow:
                            beatNowContinuation.yield()
                        case .screenshot(let request):
                            // Answered in a task of its own: beats and acknowledgements go on meanwhile.
                            group.addTask { try await answer(request, on: outbound) }
                        default:
                            continue
                        }
                    }
                    beatNowContinuation.finish()
                    group.cancelAll()
                }
            }
            if let close, case .unknown(let code) = close.closeCode,
                code == FleetWire.CloseCode.revoked || code == FleetWire.CloseCode.forbidden
            {
                return .refused("\(code): \(close.reason ?? "")")
            }
            let reason = close.map { "closed by the hub (\($0.closeCode)\($0.reason.map { ": \($0)" } ?? ""))" } ?? "closed"
            return welcome.value == 1 ? .closed(reason) : .failed(reason, retryAfter: nil)
        } catch let error as WebSocketClientError where error == .webSocketUpgradeFailed {
            return await probe()
        } catch {
            if welcome.value == 1 { return .closed("\(error)") }
            return .failed("\(error)", retryAfter: nil)
        }
    }

    /// Answers the hub's screenshot `request`: the result, then the PNG as one binary frame; or
    /// the result with why there is none.
    private func answer(_ request: ScreenshotRequest, on outbound: WebSocketOutboundWriter) async throws {
        let outcome = await screenshot?() ?? nil
        switch outcome {
        case .picture(let picture)?:
            let takenAt = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(picture.takenAt)) ?? clock.now
            let result = ScreenshotResult(id: request.id, width: picture.width, height: picture.height, takenAt: takenAt)
            try await outbound.write(.text(Self.text(.screenshotResult(result))))
            try await outbound.write(.binary(ByteBuffer(bytes: picture.png)))
        case .failed(let reason)?:
            try await outbound.write(.text(Self.text(.screenshotResult(ScreenshotResult(id: request.id, error: reason)))))
        case nil:
            let reason = screenshot == nil ? "this serve takes no screenshots" : ScreenshotOutcome.noKioskAttached
            try await outbound.write(.text(Self.text(.screenshotResult(ScreenshotResult(id: request.id, error: reason)))))
        }
    }

    /// Why the upgrade failed: the same request without the upgrade, whose status says it (401/403:
    /// refused; 503: its Retry-After).
    private func probe() async -> Outcome {
        var configuration = HTTPClient.Configuration()
        configuration.tlsConfiguration = try? tlsConfiguration()
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let outcome = await probe(with: client)
        try? await client.shutdown()
        return outcome
    }

    private func probe(with client: HTTPClient) async -> Outcome {
        var request = HTTPClientRequest(url: settings.hub.absoluteString.trimmingSlash + FleetWire.connectPath)
        request.headers.add(name: "Authorization", value: "Bearer \(settings.token)")
        do {
            let response = try await client.execute(request, timeout: .seconds(10))
            let body = (try? await response.body.collect(upTo: 4096)).map { String(buffer: $0) } ?? ""
            let message = "HTTP \(response.status.code) \(body)"
            switch response.status.code {
            case 401, 403: return .refused(message)
            case 503:
                let retry = response.headers.first(name: "Retry-After").flatMap(Int.init).map { Duration.seconds($0) }
                return .failed(message, retryAfter: retry)
            default: return .failed("the upgrade was refused: \(message)", retryAfter: nil)
            }
        } catch {
            return .failed("the upgrade was refused: \(error)", retryAfter: nil)
        }
    }

    private func tlsConfiguration() throws -> TLSConfiguration? {
        guard settings.hub.scheme?.lowercased() == "https" else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = settings.caFile {
            tls.additionalTrustRoots = [.file(caFile)]
        }
        return tls
    }

    private static func text(_ message: FleetMessage) -> String {
        // The agent's own messages are plain strings and numbers: they always encode.
        String(decoding: (try? FleetWire.encode(message)) ?? Data("{}".utf8), as: UTF8.self)
    }
}

extension String {
    fileprivate var trimmingSlash: String { hasSuffix("/") ? String(dropLast()) : self }
}

/// An integer shared between tasks.
final class Counter: Sendable {
    private let atomic = Atomic(0)

    /// The value now.
    var value: Int { atomic.load(ordering: .relaxed) }
    /// Sets it.
    func set(_ value: Int) { atomic.store(value, ordering: .relaxed) }
    /// Adds one; returns the new value.
    func increment() -> Int { atomic.add(1, ordering: .relaxed).newValue }
}
