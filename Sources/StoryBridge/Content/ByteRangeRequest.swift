import Foundation

/// What a `Range` header asks of a file or blob of a known size: one parser for the host's static
/// files and the content server's blobs.
package enum ByteRangeRequest: Equatable {
    /// No range, or one this server does not honour (several ranges, a unit other than bytes,
    /// unreadable syntax): the whole blob is served.
    case whole
    /// One satisfiable range, clamped to the blob.
    case part(ClosedRange<Int64>)
    /// A range that starts at or past the end (416).
    case unsatisfiable

    /// Reads a `Range` header value (RFC 9110 §14.1.2) for a blob of `size` bytes.
    package init(header: String?, size: Int64) {
        guard let header else {
            self = .whole
            return
        }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else {
            self = .whole
            return
        }
        let spec = trimmed.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            // A suffix: the last N bytes.
            guard let count = Int64(last), count >= 0 else {
                self = .whole
                return
            }
            guard count > 0, size > 0 else {
                self = .unsatisfiable
                return
            }
            self = .part(max(0, size - count)...(size - 1))
            return
        }
        guard let start = Int64(first), start >= 0 else {
            self = .whole
            return
        }
        var end = size - 1
        if !last.isEmpty {
            guard let given = Int64(last), given >= start else {
                self = .whole
                return
            }
            end = min(given, size - 1)
        }
        self = start < size ? .part(start...end) : .unsatisfiable
    }
}
