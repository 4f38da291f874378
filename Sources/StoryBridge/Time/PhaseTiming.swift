import Foundation

/// Where a command spends its time, phase by phase, for diagnosing speed: off unless the
/// environment variable `STORYBRIDGE_TIMING` is set (to anything but `0`), then every measured
/// phase prints one line to standard error as it ends:
///
///     timing:    12.41 ms  delta changed entries  (ends at 81.02 ms)
///
/// The end is counted from ``start()`` (the top of `main`). When `STORYBRIDGE_TIMING_SPAWNED_AT`
/// holds the Unix time in nanoseconds at which the process was spawned (the benchmark sets it just
/// before it starts the process), ``start()`` first prints the phase `process start to main`: the
/// loader, the libraries' initialisers and the runtime's start. Phases measured at the same time
/// (two packages downloaded together) print one line each. When off, a measured phase costs one
/// check of a constant.
package enum PhaseTiming {
    /// Whether phases are measured and printed (`STORYBRIDGE_TIMING` set, and not `0`).
    static let isEnabled: Bool = {
        guard let value = ProcessInfo.processInfo.environment["STORYBRIDGE_TIMING"] else { return false }
        return !value.isEmpty && value != "0"
    }()

    /// The instant ends are counted from: the first use of the timing, which ``start()`` makes at
    /// the top of `main`.
    private static let origin = ContinuousClock.now

    /// Pins the origin of the printed ends (call first thing in `main`) and, when the spawner said
    /// when it started the process, prints the time from there to now.
    package static func start() {
        guard isEnabled else { return }
        _ = origin
        let environment = ProcessInfo.processInfo.environment
        guard let text = environment["STORYBRIDGE_TIMING_SPAWNED_AT"], let spawned = Int64(text) else { return }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) - spawned
        print("process start to main", milliseconds: Double(nanoseconds) / 1e6, endingAt: 0)
    }

    /// Runs `body` and, when timing is on, prints how long it took as `phase`.
    package static func measure<Value, Failure: Error>(
        _ phase: @autoclosure () -> String, _ body: () throws(Failure) -> Value
    ) throws(Failure) -> Value {
        guard isEnabled else { return try body() }
        let begin = ContinuousClock.now
        defer { record(phase(), since: begin) }
        return try body()
    }

    /// Runs `body` and, when timing is on, prints how long it took as `phase`. `body` runs in the
    /// caller's isolation (so it may use the caller's non-sendable state).
    package static func measure<Value, Failure: Error>(
        _ phase: @autoclosure () -> String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        guard isEnabled else { return try await body() }
        let begin = ContinuousClock.now
        defer { record(phase(), since: begin) }
        return try await body()
    }

    /// The instant to pass to ``record(_:since:)`` for a phase that is not one closure, or nil
    /// when timing is off.
    package static func begin() -> ContinuousClock.Instant? {
        isEnabled ? ContinuousClock.now : nil
    }

    /// Prints `phase` as lasting from `begin` to now (nothing when `begin` is nil: timing is off).
    package static func record(_ phase: @autoclosure () -> String, since begin: ContinuousClock.Instant?) {
        guard isEnabled, let begin else { return }
        let end = ContinuousClock.now
        print(phase(), milliseconds: milliseconds(end - begin), endingAt: milliseconds(end - origin))
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) * 1e3 + Double(parts.attoseconds) / 1e15
    }

    private static func print(_ phase: String, milliseconds: Double, endingAt end: Double) {
        let line = String(format: "timing: %9.2f ms  %@  (ends at %.2f ms)\n", milliseconds, phase, end)
        FileHandle.standardError.write(Data(line.utf8))
    }
}
