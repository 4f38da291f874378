/// Why a content server could not be set up (bad config file, unusable data folder).
package enum ContentServerSetupError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadableConfig(String, String)
    case invalidConfig(String, String)
    case signingSecret(String)
    case library(String)
    /// An option or configuration value that cannot work (the reason names it).
    case invalidOption(String)
    /// The TLS certificate chain or private key cannot be used.
    case tls(String)

    package var description: String {
        switch self {
        case .unreadableConfig(let file, let reason): return "cannot read the config file \(file): \(reason)"
        case .invalidConfig(let file, let reason): return "the config file \(file) is invalid: \(reason)"
        case .signingSecret(let reason): return "cannot set up the signing secret: \(reason)"
        case .library(let reason): return "cannot open the library: \(reason)"
        case .invalidOption(let reason): return reason
        case .tls(let reason): return "cannot set up HTTPS: \(reason)"
        }
    }
}
