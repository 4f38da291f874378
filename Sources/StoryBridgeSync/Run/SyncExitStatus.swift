/// The exit statuses of login, sync, remove and reset, one per family of failure, so scripts
/// can tell them apart. Listed in `storybridge sync --help`; a sync run inside `serve` records
/// the same status for `sync --status` (``SyncRun``).
package enum SyncExitStatus {
    static let downloadFailed: Int32 = 65  // EX_DATAERR: a package failed to download or verify
    package static let unreachable: Int32 = 69  // EX_UNAVAILABLE: the server could not be reached
    package static let storage: Int32 = 74  // EX_IOERR: local files or database
    package static let busy: Int32 = 75  // EX_TEMPFAIL: another sync holds the lock
    package static let server: Int32 = 76  // EX_PROTOCOL: the server answered something unexpected
    static let wrongCredentials: Int32 = 77  // EX_NOPERM: credentials refused
    static let loginAgain: Int32 = 78  // EX_CONFIG: refresh refused or not logged in
    static let notAllowed: Int32 = 79  // the API answered 403: no access for the application, or the client is inactive
    package static let partial: Int32 = 80  // the run went on past failures of single presentations, or held back removals
    package static let interrupted: Int32 = 130

    package static func code(for error: SyncError) -> Int32 {
        if case .busy = error { return busy }
        switch error.kind {
        case .credentials: return wrongCredentials
        case .refreshRefused: return loginAgain
        case .unreachable: return unreachable
        case .notAllowed: return notAllowed
        case .server: return server
        case .download: return downloadFailed
        case .storage: return storage
        case .interrupted: return interrupted
        }
    }

    package static let helpText = """
        Exit statuses: 0 done; 65 a package failed to download or verify (others may have succeeded); \
        69 the server could not be reached; 74 local storage failed; 75 another sync is running; \
        76 the server answered something unexpected; 77 wrong credentials; 78 the session was refused \
        or is missing (log in again); 79 not allowed (HTTP 403: the application lacks access or the \
        client is inactive); 80 partial: the run finished, but some presentations failed or removals \
        were held back (sync --status says which and why); 130 interrupted (partial downloads are kept \
        and resumed).
        """
}
