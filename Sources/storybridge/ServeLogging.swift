import Logging
import StoryBridge
import StoryBridgeFleet
import Synchronization

/// Sets up swift-log for `serve`: every logger in the process (the host's, Hummingbird's, the
/// HTTP client's) writes lines in the chosen format to standard error, at the chosen level.
enum ServeLogging {
    private static let bootstrapped = Mutex(false)

    /// Bootstraps the logging system once per process and returns the host's logger; with `tap`
    /// (serve --fleet), warnings and errors also go to the fleet beat's log.
    static func bootstrap(level: Logger.Level, format: LogFormat, tap: FleetLogTap? = nil) -> Logger {
        let first = bootstrapped.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first {
            if let tap {
                LoggingSystem.bootstrap { label in
                    let handlers: [any LogHandler] = [
                        LineLogHandler(label: label, format: format, level: level), tap.handler(label: label),
                    ]
                    return MultiplexLogHandler(handlers)
                }
            } else {
                LoggingSystem.bootstrap { label in LineLogHandler(label: label, format: format, level: level) }
            }
        }
        var logger = Logger(label: "storybridge")
        logger.logLevel = level
        return logger
    }
}
