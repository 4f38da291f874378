/// Why a change to the Story context, or a context definition, was refused. Each case knows the
/// bridge answer and the HTTP status it is given, so no caller reads the message to decide.
package enum StoryContextError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The object is not declared in the context's scheme.
    case undeclaredObject(String)
    /// Content wrote to an object whose scheme says `contentMutable: false`.
    case readOnlyToContent(String)
    /// The app side (CLI, HTTP endpoint, scripts) wrote to an object whose scheme says `appMutable: false`.
    case readOnlyToApp(String)
    /// `app`, `user` and `presentation` are filled by the host and change only with it.
    case filledByHost(String)
    /// A key path that cannot be read.
    case invalidKeyPath(String, reason: String)
    /// The key path goes through a value that is not an object.
    case crossesValue(path: String, at: String, found: String)
    /// The value is not of the type named.
    case typeMismatch(type: String, value: String)
    /// A type name other than boolean, integer, float, string, null, object.
    case unknownType(String)
    /// Text that should be JSON and is not.
    case notJSON(String, reason: String)
    /// A context definition (a presentation's `story-context.json`, the config) that is not valid.
    case invalidDefinition(source: String, reason: String)
    /// A change message from a page that cannot be read.
    case invalidChange(reason: String)
    /// No such presentation in the library.
    case unknownPresentation(Int)

    package var description: String {
        switch self {
        case .undeclaredObject(let name):
            return "the Story context has no object '\(name)' (it is not in the scheme)"
        case .readOnlyToContent(let name):
            return "object '\(name)' is read-only to content (scheme: contentMutable false)"
        case .readOnlyToApp(let name):
            return
                "object '\(name)' is read-only to the app side (scheme: appMutable false); change its starting values in the presentation's story-context.json"
        case .filledByHost(let name):
            return "object '\(name)' is filled by the host (identity and catalog) and is read-only"
        case .invalidKeyPath(let path, let reason):
            return "key path '\(path)' is not valid: \(reason)"
        case .crossesValue(let path, let at, let found):
            return "key path '\(path)' goes through '\(at)', which holds \(found), not an object"
        case .typeMismatch(let type, let value):
            return "\(value) is not a value of type \(type)"
        case .unknownType(let type):
            return "unknown type '\(type)' (boolean, integer, float, string, null or object)"
        case .notJSON(let text, let reason):
            return "'\(text.prefix(80))' is not JSON: \(reason)"
        case .invalidDefinition(let source, let reason):
            return "the Story context of \(source) is not valid: \(reason)"
        case .invalidChange(let reason):
            return "the Story context change cannot be read: \(reason)"
        case .unknownPresentation(let id):
            return "no presentation \(id) in the library"
        }
    }

    /// The bridge's answer: a refusal (400) for writes the scheme forbids and bad input, not
    /// found (404) for an unknown presentation.
    var bridgeError: BridgeError {
        switch self {
        case .invalidKeyPath, .crossesValue, .typeMismatch, .unknownType, .notJSON, .invalidChange:
            return .invalidData(field: "change", reason: description)
        case .unknownPresentation:
            return .notFound(description)
        default:
            return .refused(description)
        }
    }

    /// The HTTP status of the endpoint's answer: 403 for writes the scheme forbids, 404 for an
    /// unknown object or presentation, 400 for bad input, 500 for a broken definition.
    package var httpStatus: Int {
        switch self {
        case .readOnlyToContent, .readOnlyToApp, .filledByHost: return 403
        case .undeclaredObject, .unknownPresentation: return 404
        case .invalidDefinition: return 500
        default: return 400
        }
    }
}
