import Foundation
import Logging

/// The `console` method a page logged a line with, as a `consolelog` command names it.
package enum PageConsoleLevel: String, Sendable, CaseIterable {
    case log, info, warn, error, debug

    /// The level named `name` (any case, surrounding spaces ignored); ``log`` for any other name,
    /// or none: a line whose level the host does not know is still worth showing.
    package init(name: String?) {
        let trimmed = name?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        self = PageConsoleLevel(rawValue: trimmed) ?? .log
    }

    /// The level the host logs the line at: `log` and `info` → info, `debug` → debug, `warn` →
    /// warning, `error` → error.
    package var loggerLevel: Logger.Level {
        switch self {
        case .log, .info: .info
        case .debug: .debug
        case .warn: .warning
        case .error: .error
        }
    }
}
