import Foundation

/// A failure a module or the router answers with. The wire answer (`ErrorCode`, `ErrorMessage`)
/// is derived from the case, never from matching strings.
public enum BridgeError: Error, Sendable, Hashable {
    /// No module is registered for the command (400).
    case unknownCommand(String)
    /// A `Data` member is missing or has the wrong type or value (400).
    case invalidData(field: String, reason: String)
    /// The thing asked for does not exist: slide, presentation, session, media file... (404).
    case notFound(String)
    /// The request is understood but refused in the current state (400).
    case refused(String)
    /// The content service does not allow it: a presentation it blocked (`lockout`) (403).
    case blocked(String)
    /// The module did not answer within its deadline (504).
    case deadlineExceeded(command: String, module: String, seconds: Double)
    /// The module failed with an error that is not a `BridgeError` (500).
    case moduleFailed(command: String, module: String, reason: String)
    /// The host could not save the change the request makes: its storage is full or failing
    /// (507 when full, 503 otherwise). Nothing of the request was recorded; reads still work.
    case storage(StorageError)
    /// A custom answer: any code, message and data, for modules that need them (for example the
    /// HTTP module, which passes the remote status through).
    case custom(code: Int, message: String, data: JSONValue)

    /// The `ErrorCode` this error is answered with.
    public var errorCode: Int {
        switch self {
        case .unknownCommand, .invalidData, .refused: return 400
        case .blocked: return 403
        case .notFound: return 404
        case .deadlineExceeded: return 504
        case .moduleFailed: return 500
        case .storage(.full): return 507
        case .storage: return 503
        case .custom(let code, _, _): return code
        }
    }

    /// The `ErrorMessage` this error is answered with.
    public var message: String {
        switch self {
        case .unknownCommand(let command):
            return "Unknown command '\(command)': no module is registered for it"
        case .invalidData(let field, let reason):
            return "Invalid Data: '\(field)' \(reason)"
        case .notFound(let what):
            return what
        case .refused(let why), .blocked(let why):
            return why
        case .deadlineExceeded(let command, let module, let seconds):
            return "Module '\(module)' did not answer '\(command)' within \(Self.format(seconds)) s"
        case .moduleFailed(let command, let module, let reason):
            return "Module '\(module)' failed on '\(command)': \(reason)"
        case .storage(.full):
            return "The host's storage is full: the change was not saved (try again once space is freed)"
        case .storage(.readOnly):
            return "The host's storage cannot be written: the change was not saved"
        case .storage(.ioFailure):
            return "The host's disk failed: the change was not saved"
        case .custom(_, let message, _):
            return message
        }
    }

    /// Whether the failure points at a defect in the content or a module (an unknown command, bad
    /// `Data`, a module that threw or hung), so the host logs it as a warning. Not-found, refused and
    /// custom answers are ordinary outcomes content handles (as are blocked presentations).
    public var isDefect: Bool {
        switch self {
        case .unknownCommand, .invalidData, .deadlineExceeded, .moduleFailed: return true
        case .notFound, .refused, .blocked, .storage, .custom: return false
        }
    }

    /// The `Data` sent with the failure: `{}` unless the case carries its own.
    public var data: JSONValue {
        if case .custom(_, _, let data) = self { return data }
        return .emptyObject
    }

    private static func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds ? String(Int(seconds)) : String(format: "%.3g", seconds)
    }
}

extension BridgeError: LocalizedError {
    /// The error's `Message`, as sent to the page.
    public var errorDescription: String? { message }
}
