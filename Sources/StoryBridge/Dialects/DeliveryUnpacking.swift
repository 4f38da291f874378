import Foundation

/// Turns a delivery as given on the command line (a folder or a zip) into a folder
/// ``PresentationFolder`` reads, whatever its dialect: a StoryCLM package zip is unpacked as
/// before; a Veeva or OCE zip of zips, or a folder of zips, is unpacked key message (sequence) by
/// key message (``VeevaDeliveryUnpacker``); a single OCE sequence zip into a folder of its own. `dialect` forces the reading; `nil` detects it.
package enum DeliveryUnpacking {
    /// Unpacks `zip` into `destination` (which must not exist); nothing is left there on refusal.
    package static func unpack(zip: URL, to destination: URL, dialect: DialectName?, limits: PackageLimits = PackageLimits())
        throws(PackageError)
    {
        let veeva = VeevaDeliveryUnpacker(limits: limits)
        switch dialect {
        case .storyclm?:
            _ = try PackageExtractor(limits: limits).extract(zip: zip, to: destination)
        case .oce?:
            if try veeva.isZipOfZips(zip) {
                try veeva.unpack(zipOfZips: zip, to: destination)
            } else {
                try unpackSequence(zip: zip, to: destination, limits: limits)
            }
        case .veeva?:
            if try veeva.isZipOfZips(zip) {
                try veeva.unpack(zipOfZips: zip, to: destination)
            } else {
                _ = try PackageExtractor(limits: limits).extract(zip: zip, to: destination, requiresStartSlide: false)
            }
        case nil:
            if try veeva.isZipOfZips(zip) {
                try veeva.unpack(zipOfZips: zip, to: destination)
            } else {
                // Key-message folders zipped (`KM/KM.html`, `KM/index.html`) are Veeva's; anything
                // else is read as StoryCLM's package, refused as before without `index.html`.
                let paths = try PackageExtractor(limits: limits).filePaths(zip: zip, requiresStartSlide: false)
                if !paths.contains(Presentation.startSlide), OceDelivery.isSequenceZip(paths) {
                    // One OCE sequence zip (`01_name.html` at its root): a delivery of one sequence.
                    try unpackSequence(zip: zip, to: destination, limits: limits)
                    return
                }
                _ = try PackageExtractor(limits: limits).extract(
                    zip: zip, to: destination,
                    requiresStartSlide: paths.contains(Presentation.startSlide) || !paths.contains(where: Self.isKeyMessagePage))
            }
        }
    }

    /// One OCE sequence zip into `destination/NAME/` (the zip's base name), as a delivery of one sequence.
    static func unpackSequence(zip: URL, to destination: URL, limits: PackageLimits) throws(PackageError) {
        do {
            try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
        } catch {
            throw .writeFailed(path: destination.path, reason: SystemProblem(error).description)
        }
        let name = zip.deletingPathExtension().lastPathComponent
        do throws(PackageError) {
            _ = try PackageExtractor(limits: limits).extract(
                zip: zip, to: destination.appendingPathComponent(name.isEmpty ? "sequence" : name), requiresStartSlide: false)
        } catch {
            try? FileManager.default.removeItem(at: destination)
            throw error
        }
    }

    /// Whether `path` is a key message's page in a zip of key-message folders: `KM/KM.html` or `KM/index.html`.
    static func isKeyMessagePage(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        guard parts.count == 2 else { return false }
        return parts[1] == "\(parts[0]).html" || parts[1] == "index.html"
    }

    /// Whether the folder must be unpacked before it is read: a Veeva delivery of zips (when the
    /// dialect is Veeva, OCE or not given): a folder of key-message or sequence zips.
    package static func needsUnpacking(folder: URL, dialect: DialectName?) -> Bool {
        dialect != .storyclm && VeevaDeliveryUnpacker.isPackedDelivery(folder: folder)
    }

    /// Unpacks the packed delivery `folder` into `destination` (which must not exist).
    package static func unpack(folder: URL, to destination: URL, limits: PackageLimits = PackageLimits()) throws(PackageError) {
        try VeevaDeliveryUnpacker(limits: limits).unpack(folder: folder, to: destination)
    }

    /// The files and bytes under `folder` (what the catalog records of an unpacked delivery).
    static func unpackedFolder(_ folder: URL) -> LibraryStore.AssembledFolder {
        var files = 0
        var bytes: Int64 = 0
        let keys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey]
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys) else {
            return LibraryStore.AssembledFolder(files: 0, bytes: 0)
        }
        for case let file as URL in walker {
            guard let values = try? file.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { continue }
            files += 1
            bytes += Int64(values.fileSize ?? 0)
        }
        return LibraryStore.AssembledFolder(files: files, bytes: bytes)
    }
}
