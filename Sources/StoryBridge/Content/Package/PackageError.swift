/// Why a presentation package (.zip) was refused. Each case names what was wrong, and nothing of
/// the package is left behind when one is thrown.
package enum PackageError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case notAZip(path: String)
    case corrupt(path: String, reason: String)
    case unsafeEntry(name: String, reason: String)
    case nonUTF8Name(hexBytes: String)
    case duplicateEntry(String)
    case unsupportedEntry(name: String, reason: String)
    case tooManyEntries(limit: Int)
    case tooLarge(limitBytes: Int64)
    case suspiciousRatio(name: String, ratio: Int, limit: Int)
    case missingIndex
    case writeFailed(path: String, reason: String)
    /// A folder given where a package was expected, which is not a delivery of zips either.
    case folderNotADelivery(path: String)

    package var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read '\(path)': \(reason)"
        case .notAZip(let path): return "'\(path)' is not a zip file"
        case .corrupt(let path, let reason): return "'\(path)' is a corrupt or truncated zip: \(reason)"
        case .unsafeEntry(let name, let reason): return "refused entry '\(name)': \(reason)"
        case .nonUTF8Name(let hex): return "refused entry with a name that is not UTF-8 (bytes \(hex))"
        case .duplicateEntry(let name): return "refused package: entry '\(name)' appears more than once"
        case .unsupportedEntry(let name, let reason): return "refused entry '\(name)': \(reason)"
        case .tooManyEntries(let limit): return "refused package: more than \(limit) entries"
        case .tooLarge(let limit): return "refused package: it unpacks to more than \(limit) bytes"
        case .suspiciousRatio(let name, let ratio, let limit):
            return "refused entry '\(name)': compression ratio \(ratio):1 exceeds \(limit):1 (zip bomb?)"
        case .missingIndex: return "refused package: no index.html in the root of the archive"
        case .writeFailed(let path, let reason): return "cannot write '\(path)': \(reason)"
        case .folderNotADelivery(let path):
            return
                "'\(path)' is a folder: install takes a package zip, or a Veeva or OCE delivery folder of key-message (sequence) zips; "
                + "to look at a plain folder, serve it"
        }
    }
}

/// Limits that protect the host from hostile packages.
package struct PackageLimits: Sendable, Hashable {
    /// Most entries (files and folders) a package may hold.
    package var maxEntries: Int
    /// Most bytes a package may unpack to.
    package var maxUncompressedBytes: Int64
    /// Highest compression ratio accepted for an entry once it has produced `ratioCheckAfterBytes`.
    package var maxCompressionRatio: Int
    /// Entries smaller than this are not ratio-checked (tiny, very compressible text is normal).
    var ratioCheckAfterBytes: Int64

    /// 50,000 entries, 4 GiB, 200:1 once an entry has produced 4 MiB.
    package init(
        maxEntries: Int = 50_000, maxUncompressedBytes: Int64 = 4 << 30, maxCompressionRatio: Int = 200,
        ratioCheckAfterBytes: Int64 = 4 << 20
    ) {
        self.maxEntries = maxEntries
        self.maxUncompressedBytes = maxUncompressedBytes
        self.maxCompressionRatio = maxCompressionRatio
        self.ratioCheckAfterBytes = ratioCheckAfterBytes
    }
}
