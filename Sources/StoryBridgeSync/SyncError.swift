import StoryBridge

/// Why a login, a metadata sync or a download failed. Each case says what an operator can do
/// about it; the CLI's exit status derives from ``kind``.
package enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The token endpoint refused the credentials (400 `invalid_client`, `invalid_grant`...).
    case wrongCredentials(oauthError: String)
    /// The token endpoint refused to renew the session (refresh token expired or revoked).
    case refreshRefused(oauthError: String)
    /// No session is stored: `storybridge login` first.
    case notLoggedIn
    /// The server could not be reached (refused connection, name lookup, timeout, dropped).
    case unreachable(host: String, reason: String)
    /// The server answered with a status this client does not expect for `path`.
    case unexpectedStatus(path: String, status: Int)
    /// The API answered 403 to `path`: the application lacks the `content` scope, the client is
    /// inactive, or the presentation is locked for this user.
    case notAllowed(path: String)
    /// The server's reply could not be understood.
    case malformedReply(path: String, reason: String)
    /// A presentation id the catalog does not know.
    case unknownPresentation(Int)
    /// The id belongs to a presentation installed by hand, which sync does not replace.
    case idTakenByLocalPresentation(Int)
    /// The presentation has no content package on the service.
    case noContentPackage(Int)
    /// The downloaded package is not the size the service declared.
    case sizeMismatch(presentationId: Int, expected: Int64, received: Int64)
    /// The downloaded package was refused by the archive checks.
    case packageRefused(presentationId: Int, PackageError)
    /// The package was refused by the trust rules (docs/SYNC.md, "Signed packages"): the failure
    /// names the rule and, where there is one, the file.
    case trustRefused(presentationId: Int, TrustFailure)
    /// A media file could not be fetched.
    case mediaFileFailed(presentationId: Int, mediaFileId: Int, reason: String)
    /// Not enough free disk space for the download and its unpacked copy.
    case insufficientSpace(needed: Int64, available: Int64)
    /// The package was republished while it was being downloaded (a fresh link named another
    /// revision, blob or size); the bytes of the old one were discarded.
    case packageChanged(presentationId: Int)
    /// The download kept failing after every retry.
    case downloadFailed(presentationId: Int, reason: String)
    /// Local storage (files, database) failed.
    case storage(String)
    /// Another `storybridge sync` is running on this data folder.
    case busy(lockFile: String)
    /// The run was interrupted (Ctrl-C); partial downloads are kept for the next run.
    case interrupted

    /// The family of failure, which picks the CLI's exit status.
    package enum Kind: Sendable, Equatable {
        case credentials, refreshRefused, unreachable, notAllowed, server, download, storage, interrupted
    }

    package var kind: Kind {
        switch self {
        case .wrongCredentials: return .credentials
        case .refreshRefused, .notLoggedIn: return .refreshRefused
        case .unreachable: return .unreachable
        case .notAllowed: return .notAllowed
        case .unexpectedStatus, .malformedReply, .unknownPresentation, .noContentPackage: return .server
        case .sizeMismatch, .packageRefused, .trustRefused, .mediaFileFailed, .downloadFailed, .idTakenByLocalPresentation, .packageChanged:
            return .download
        case .insufficientSpace, .storage, .busy: return .storage
        case .interrupted: return .interrupted
        }
    }

    package var description: String {
        switch self {
        case .wrongCredentials(let code):
            return "the server refused the credentials (\(code)): check the client id, secret, user name and password"
        case .refreshRefused(let code):
            return "the server refused to renew the session (\(code)): log in again with storybridge login"
        case .notLoggedIn:
            return "not logged in: run storybridge login first"
        case .unreachable(let host, let reason):
            return "cannot reach \(host): \(reason)"
        case .unexpectedStatus(let path, let status):
            return "the server answered \(status) to \(path)"
        case .notAllowed(let path):
            return "not allowed: the application lacks access or the client is inactive (HTTP 403 to \(path))"
        case .malformedReply(let path, let reason):
            return "the server's reply to \(path) is not understood: \(reason)"
        case .unknownPresentation(let id):
            return "presentation \(id) is not in the synced catalog (run storybridge sync, then storybridge sync --status)"
        case .idTakenByLocalPresentation(let id):
            return
                "presentation id \(id) is taken by a presentation installed by hand; remove it (storybridge remove \(id)) to sync this one"
        case .noContentPackage(let id):
            return "presentation \(id) has no content package on the server"
        case .sizeMismatch(let id, let expected, let received):
            return "the package of presentation \(id) is \(received) bytes, the server declared \(expected): refused"
        case .packageRefused(let id, let error):
            return "the package of presentation \(id) was refused: \(error)"
        case .trustRefused(let id, let failure):
            return "the package of presentation \(id) was refused: \(failure)"
        case .mediaFileFailed(let id, let media, let reason):
            return "media file \(media) of presentation \(id) could not be fetched: \(reason)"
        case .insufficientSpace(let needed, let available):
            return "not enough free disk space: \(Self.megabytes(needed)) needed, \(Self.megabytes(available)) free"
        case .packageChanged(let id):
            return "the package of presentation \(id) was republished during its download; the old bytes were discarded"
        case .downloadFailed(let id, let reason):
            return "the package of presentation \(id) could not be downloaded: \(reason)"
        case .storage(let reason):
            return "local storage failed: \(reason)"
        case .busy(let lockFile):
            return "another storybridge sync is running on this data folder (lock: \(lockFile))"
        case .interrupted:
            return "interrupted; partial downloads are kept and the next storybridge sync --content resumes them"
        }
    }

    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f MB", Double(bytes) / 1e6)
    }
}
