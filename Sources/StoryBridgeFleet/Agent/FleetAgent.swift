import Foundation
import Logging
import ServiceLifecycle
import StoryBridge
import Synchronization

/// The kiosk side of the fleet inside `serve --fleet` (docs/design/FLEET.md §3.2): a `Service`
/// that keeps a connection to the hub and beats over it.
///
/// Its `run()` never throws (a service that throws stops `serve`): every failure becomes an
/// event of ``FleetAgentState``, whose actions it carries out (connect, wait). It reads the host
/// only through the ``BeatBuilder``'s sources. On graceful shutdown it sends `bye` and returns.
package struct FleetAgent: Service, CustomStringConvertible {
    let settings: FleetAgentSettings
    let hostKey: HostKey
    let builder: BeatBuilder
    let clock: any HostClock
    let logger: Logger
    let instance: String
    let startedAt: Date
    let timeZone: String
    /// The whole schedule (``DeckSchedule/json``), which the hello carries; nil without one.
    let schedule: JSONValue?
    /// Takes a screenshot of what the kiosk shows (nil at once when no kiosk browser is
    /// attached); nil when this serve cannot.
    let screenshot: (@Sendable () async -> ScreenshotOutcome?)?

    /// An agent reporting to `settings.hub` as `hostKey`'s host, with beats from `builder`.
    package init(
        settings: FleetAgentSettings, hostKey: HostKey, builder: BeatBuilder, clock: any HostClock, logger: Logger,
        startedAt: Date = Date(), timeZone: String = TimeZone.current.identifier, schedule: JSONValue? = nil,
        screenshot: (@Sendable () async -> ScreenshotOutcome?)? = nil
    ) {
        self.schedule = schedule
        self.screenshot = screenshot
        self.settings = settings
        self.hostKey = hostKey
        self.builder = builder
        self.clock = clock
        self.logger = logger
        instance = builder.identity.instance
        self.startedAt = startedAt
        self.timeZone = timeZone
    }

    /// Names the hub and the kiosk, never the token (the service group logs its services).
    package var description: String { "FleetAgent(hub: \(settings.hub), name: \(settings.name))" }

    /// Connects, beats, reconnects with back-off, until the service group shuts down.
    package func run() async {
        let state = Locked(FleetAgentState())
        let sequence = Counter()
        // One stop stream per connection: an AsyncStream whose reader was cancelled is finished for good.
        let currentStop = Locked<AsyncStream<Void>.Continuation?>(nil)
        let stopping = Counter()
        let link = FleetLink(
            settings: settings, hostKey: hostKey,
            hello: { [settings, hostKey, instance, startedAt, timeZone, schedule] nonce in
                KioskHello.signed(
                    by: hostKey, nonce: nonce, hubOrigin: settings.origin, instance: instance, name: settings.name,
                    labels: settings.labels, version: StoryBridgeVersion.current,
                    intervalSeconds: Int(settings.interval.components.seconds), startedAt: startedAt, timeZone: timeZone,
                    schedule: schedule, metricsURL: settings.advertise)
            },
            builder: builder, clock: clock, logger: logger,
            welcomed: { [clock, logger, settings] in
                _ = state.withLock { $0.handle(.welcomed, now: clock.instant, date: clock.now) }
                logger.info("fleet: connected to the hub", metadata: ["hub": "\(settings.hub)"])
            },
            unreachable: { date in
                state.withLock { $0.hubUnreachable(at: date) }.map {
                    Beat.HubUnreachable(since: $0.since, seconds: $0.seconds, attempts: $0.attempts)
                }
            },
            unreachableReported: { state.withLock { $0.unreachableReported() } },
            sequence: sequence, screenshot: screenshot)
        await withGracefulShutdownHandler {
            var action = state.withLock { $0.handle(.start, now: clock.instant, date: clock.now) }
            while !Task.isCancelled {
                switch action {
                case .connect:
                    let (stop, stopContinuation) = AsyncStream<Void>.makeStream()
                    currentStop.withLock { $0 = stopContinuation }
                    if stopping.value == 1 { stopContinuation.yield() }
                    // The link runs outside the service's graceful shutdown: the WebSocket client
                    // closes its socket by itself on one, racing the `bye` the link sends first
                    // when `stop` is asked (the hub then saw a kiosk gone silent, not stopped).
                    let running = Task.detached { await link.run(stop: stop) }
                    let outcome = await withTaskCancellationHandler {
                        await running.value
                    } onCancel: {
                        running.cancel()
                    }
                    stopContinuation.finish()
                    if Task.isCancelled || stopping.value == 1 { return }
                    let event: FleetAgentState.Event
                    switch outcome {
                    case .failed(let reason, let retryAfter):
                        logger.debug("fleet: the hub could not be reached", metadata: ["reason": "\(reason)"])
                        event = .attemptFailed(retryAfter: retryAfter)
                    case .refused(let reason):
                        event = .refused(reason: reason)
                    case .closed(let reason):
                        logger.notice("fleet: the connection to the hub ended", metadata: ["reason": "\(reason)"])
                        event = .closed
                    }
                    let jitter = Double.random(in: 0.8...1.2)
                    action = state.withLock { $0.handle(event, now: clock.instant, date: clock.now, jitter: jitter) }
                case .wait(let duration):
                    do { try await cancelWhenGracefulShutdown { try await clock.sleep(for: duration) } } catch { return }
                    if stopping.value == 1 { return }
                    action = state.withLock { $0.handle(.waitOver, now: clock.instant, date: clock.now) }
                case .waitRefused(let duration, let reason, let log):
                    if log {
                        logger.error(
                            "fleet: the hub refused this kiosk (\(reason)); trying again every \(duration.components.seconds / 60) min")
                    }
                    do { try await cancelWhenGracefulShutdown { try await clock.sleep(for: duration) } } catch { return }
                    if stopping.value == 1 { return }
                    action = state.withLock { $0.handle(.waitOver, now: clock.instant, date: clock.now) }
                case .none:
                    return
                }
            }
        } onGracefulShutdown: {
            stopping.set(1)
            currentStop.withLock { _ = $0?.yield() }
        }
    }
}

/// A value behind a lock, shared by reference between the agent and its link's callbacks.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
}
