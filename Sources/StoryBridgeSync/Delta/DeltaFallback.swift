/// Why a package update is fetched whole instead of as a delta. Each case is said to the
/// operator (log line and `sync` output); none of them is a failure: the full download follows.
package enum DeltaFallback: Error, Sendable, Equatable, CustomStringConvertible {
    /// No installed revision of this package, or no entry index was kept when it was unpacked.
    case nothingInstalled
    /// The server answered a range request with the whole blob (200).
    case rangesIgnored
    /// The server declared `Accept-Ranges: none`.
    case rangesRefused
    /// The server refused a suffix range (`bytes=-N`) with this status; 200 when it sent the
    /// whole blob instead, which was kept as the full download.
    case suffixRangeRefused(status: Int)
    /// The server sent no strong ETag, so later range requests could not be guarded.
    case unguarded
    /// The server answered a range request with another status, or redirected it.
    case unexpectedStatus(Int)
    /// The archive cannot be read remotely: ZIP64, a compression method other than stored or
    /// deflate, a central directory that does not parse.
    case unreadableArchive(String)
    /// The blob changed between two range requests (another ETag, another length, or a 200
    /// answered to `If-Range`).
    case blobChanged
    /// More than half of the package's bytes changed: the whole package costs about the same.
    case mostBytesChanged(changed: Int64, total: Int64)
    /// An installed file the update would reuse is missing or has another size.
    case installedFileDiffers(String)
    /// The connection failed during a range request (the full download retries and resumes).
    case transport(String)

    package var description: String {
        switch self {
        case .nothingInstalled: return "no installed revision with an entry index"
        case .rangesIgnored: return "the server answered a range request with the whole blob (200)"
        case .rangesRefused: return "the server does not accept ranges (Accept-Ranges: none)"
        case .suffixRangeRefused(status: 200):
            return "the server answered a suffix range with the whole package (HTTP 200), kept as the full download"
        case .suffixRangeRefused(let status): return "the server refused a suffix range (HTTP \(status))"
        case .unguarded: return "the server sent no strong ETag to guard range requests with"
        case .unexpectedStatus(let status): return "the server answered a range request with HTTP \(status)"
        case .unreadableArchive(let reason): return "the archive cannot be read remotely: \(reason)"
        case .blobChanged: return "the package changed between two range requests"
        case .mostBytesChanged(let changed, let total): return "\(changed) of \(total) bytes changed (more than half)"
        case .installedFileDiffers(let path): return "the installed file '\(path)' is missing or differs from its index"
        case .transport(let reason): return "a range request failed: \(reason)"
        }
    }
}
