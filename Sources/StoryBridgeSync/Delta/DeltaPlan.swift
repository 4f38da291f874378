/// Which entries of a new package to fetch and which to reuse from the installed revision, and
/// the byte ranges that fetch them: each changed entry's span (local header, data, descriptor),
/// sorted, with spans closer than `mergeGap` merged into one request.
struct DeltaPlan: Sendable {
    /// File entries whose name, CRC-32 or size is not in the installed index.
    var changed: [ZipDirectoryEntry] = []
    /// File entries the installed revision already holds.
    var reused: [ZipDirectoryEntry] = []
    /// Folder entries (created, nothing to fetch).
    var folders: [ZipDirectoryEntry] = []
    /// The ranges to request, in blob order, not overlapping.
    var ranges: [Range<Int64>] = []

    /// The bytes the ranges ask for.
    var bytesToFetch: Int64 { ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }

    /// The disk space the update takes while it runs: the fetched ranges (the changes zip) and
    /// the changed files unpacked into the new revision folder. Unchanged files are hard links
    /// and take none (they are copied only where the file system refuses links).
    var diskBytesNeeded: Int64 { bytesToFetch + changed.reduce(0) { $0 + $1.uncompressedSize } }

    /// Bytes between two changed spans that are fetched rather than spent on another request.
    static let defaultMergeGap: Int64 = 64 * 1024

    init(directory: ZipDirectory, installed: DeltaIndex, mergeGap: Int64 = DeltaPlan.defaultMergeGap) {
        for entry in directory.entries {
            if entry.isDirectory {
                folders.append(entry)
            } else if installed.files[entry.name] == DeltaIndex.Entry(crc32: entry.crc32, size: entry.uncompressedSize) {
                reused.append(entry)
            } else {
                changed.append(entry)
            }
        }
        let ends = directory.spanEnds()
        let spans = changed.map { $0.localHeaderOffset..<(ends[$0.localHeaderOffset] ?? directory.location.offset) }
            .sorted { $0.lowerBound < $1.lowerBound }
        for span in spans {
            if let last = ranges.last, span.lowerBound <= last.upperBound + mergeGap {
                ranges[ranges.count - 1] = last.lowerBound..<max(last.upperBound, span.upperBound)
            } else {
                ranges.append(span)
            }
        }
    }
}
