import CMinizip
import Foundation

/// Why a package zip could not be written.
struct PackageZipError: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String
}

/// Writes a presentation folder into a zip with the system minizip, streaming each file in
/// chunks so memory stays flat whatever the file sizes. Entries are sorted by path and carry the
/// files' modification times, so the same folder gives the same bytes. Files that are already
/// compressed (video, audio, images, fonts, archives) are stored; the rest is deflated.
struct PackageZipWriter {
    static let storedExtensions: Set<String> = [
        "mp4", "m4v", "mov", "webm", "mp3", "m4a", "ogg", "oga", "aac", "jpg", "jpeg", "png", "gif", "webp", "woff",
        "woff2", "zip", "gz", "pdf",
    ]
    static let chunkSize = 1 << 20

    /// Zips every regular file under `folder` but those at the relative paths `leavingOut` into
    /// `destination` (created or truncated).
    static func write(folder: URL, to destination: URL, leavingOut: Set<String> = []) throws(PackageZipError) {
        let files = try regularFiles(under: folder).filter { !leavingOut.contains($0.0) }
        guard let handle = zipOpen64(destination.path, APPEND_STATUS_CREATE) else {
            throw PackageZipError(description: "cannot create \(destination.path)")
        }
        var closed = false
        defer { if !closed { zipClose(handle, nil) } }
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        for (relativePath, url, modified) in files {
            try add(relativePath, from: url, modified: modified, to: handle, buffer: &buffer)
        }
        closed = true
        guard zipClose(handle, nil) == ZIP_OK else { throw PackageZipError(description: "cannot finish \(destination.path)") }
    }

    private static func regularFiles(under folder: URL) throws(PackageZipError) -> [(String, URL, Date)] {
        let root = folder.standardizedFileURL.resolvingSymlinksInPath()
        let keys: [URLResourceKey] = [.isRegularFileKey, .contentModificationDateKey]
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys) else {
            throw PackageZipError(description: "cannot list \(folder.path)")
        }
        var files: [(String, URL, Date)] = []
        let prefix = root.path.hasSuffix("/") ? root.path : root.path + "/"
        for case let url as URL in enumerator {
            guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { continue }
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(prefix) else { continue }
            files.append((String(path.dropFirst(prefix.count)), url, values.contentModificationDate ?? Date(timeIntervalSince1970: 0)))
        }
        guard !files.isEmpty else { throw PackageZipError(description: "\(folder.path) has no files") }
        return files.sorted { $0.0 < $1.0 }
    }

    private static func add(
        _ name: String, from file: URL, modified: Date, to handle: zipFile, buffer: inout [UInt8]
    ) throws(PackageZipError) {
        guard let input = fopen(file.path, "rb") else { throw PackageZipError(description: "cannot read \(file.path)") }
        defer { fclose(input) }
        var info = zip_fileinfo()
        info.tmz_date = zipDate(modified)
        info.external_fa = uLong(0o100644) << 16
        let store = storedExtensions.contains(file.pathExtension.lowercased())
        let madeByUnix: uLong = (3 << 8) | 20
        let status = zipOpenNewFileInZip4_64(
            handle, name, &info, nil, 0, nil, 0, nil, store ? 0 : Z_DEFLATED, store ? 0 : 6, 0, -MAX_WBITS, DEF_MEM_LEVEL,
            Z_DEFAULT_STRATEGY, nil, 0, madeByUnix, 1 << 11, 1)
        guard status == ZIP_OK else { throw PackageZipError(description: "cannot add \(name) (minizip code \(status))") }
        while true {
            let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, chunkSize, input) }
            if count == 0 {
                guard ferror(input) == 0 else { throw PackageZipError(description: "cannot read \(file.path)") }
                break
            }
            let written = buffer.withUnsafeBytes { zipWriteInFileInZip(handle, $0.baseAddress, UInt32(count)) }
            guard written == ZIP_OK else { throw PackageZipError(description: "cannot write \(name) into the zip") }
        }
        guard zipCloseFileInZip(handle) == ZIP_OK else { throw PackageZipError(description: "cannot close \(name) in the zip") }
    }

    /// A zip (DOS) date of `date` in UTC; zip times before 1980 are not representable.
    private static func zipDate(_ date: Date) -> tm_zip {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let clamped = max(date, Date(timeIntervalSince1970: 315_532_800))
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: clamped)
        var value = tm_zip()
        value.tm_sec = UInt32(parts.second ?? 0)
        value.tm_min = UInt32(parts.minute ?? 0)
        value.tm_hour = UInt32(parts.hour ?? 0)
        value.tm_mday = UInt32(parts.day ?? 1)
        value.tm_mon = UInt32((parts.month ?? 1) - 1)
        value.tm_year = UInt32(parts.year ?? 1980)
        return value
    }
}
