import Foundation

/// Unpacks a Veeva delivery as agencies send it into the folder shape ``VeevaDelivery`` reads:
/// a folder of zips, or a zip of zips (one `NAME.zip` per key message, a shared-resource zip,
/// optionally a loader CSV and `veeva.json`/`crm-data.json`). Each inner zip gets every check of a
/// package (``PackageExtractor``: sizes, ratios, paths, counts); a zip whose entries all sit in
/// one folder named like it (`NAME/…`) is unpacked without that level. The shared resource is the
/// zip named `shared*.zip` (or marked shared in the loader CSV); it lands in `shared/`. On any
/// refusal the destination is removed: nothing is left behind.
struct VeevaDeliveryUnpacker: Sendable {
    package var limits: PackageLimits

    package init(limits: PackageLimits = PackageLimits()) {
        self.limits = limits
    }

    /// Whether `folder` is a packed Veeva delivery: it holds zips and no `index.html`.
    static func isPackedDelivery(folder: URL) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return false }
        return !names.contains(Presentation.startSlide) && names.contains { $0.lowercased().hasSuffix(".zip") }
    }

    /// Whether the zip at `zip` is a zip of zips (a packed Veeva delivery): its root holds zips
    /// and no `index.html`. Its listing gets the package checks.
    func isZipOfZips(_ zip: URL) throws(PackageError) -> Bool {
        let paths = try PackageExtractor(limits: limits).filePaths(zip: zip, requiresStartSlide: false)
        return !paths.contains(Presentation.startSlide)
            && paths.contains { !$0.contains("/") && $0.lowercased().hasSuffix(".zip") }
    }

    /// Unpacks the zip of zips `zip` into `destination` (which must not exist).
    package func unpack(zipOfZips zip: URL, to destination: URL) throws(PackageError) {
        let outer = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).outer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outer) }
        _ = try PackageExtractor(limits: limits).extract(zip: zip, to: outer, requiresStartSlide: false)
        try unpack(folder: outer, to: destination)
    }

    /// Unpacks the delivery folder `folder` (zips and side files in its root) into `destination`
    /// (which must not exist).
    package func unpack(folder: URL, to destination: URL) throws(PackageError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        } catch {
            throw .unreadable(path: folder.path, reason: SystemProblem(error).description)
        }
        do {
            try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
        } catch {
            throw .writeFailed(path: destination.path, reason: SystemProblem(error).description)
        }
        do {
            let sharedNames = try Self.sharedResourceNames(folder: folder, names: names)
            var unpacked = 0
            for name in names where !name.hasPrefix(".") {
                let source = folder.appendingPathComponent(name)
                guard FileManager.default.isPlainFile(source) else { continue }
                if name.lowercased().hasSuffix(".zip") {
                    let base = String(name.dropLast(4))
                    let shared = sharedNames.contains(base) || base.lowercased().hasPrefix(VeevaDelivery.sharedFolder)
                    let target = shared ? VeevaDelivery.sharedFolder : base
                    guard !target.isEmpty, !target.contains("/"),
                        !FileManager.default.fileExists(atPath: destination.appendingPathComponent(target).path)
                    else { throw PackageError.duplicateEntry(target) }
                    try unpackInner(source, named: base, to: destination.appendingPathComponent(target))
                    unpacked += 1
                } else if Self.sideFiles(name) {
                    do {
                        try FileManager.default.copyItem(at: source, to: destination.appendingPathComponent(name))
                    } catch {
                        throw PackageError.writeFailed(path: name, reason: SystemProblem(error).description)
                    }
                }
            }
            guard unpacked > 0 else { throw PackageError.missingIndex }
        } catch let error as PackageError {
            try? FileManager.default.removeItem(at: destination)
            throw error
        } catch {
            try? FileManager.default.removeItem(at: destination)
            throw .writeFailed(path: destination.path, reason: SystemProblem(error).description)
        }
    }

    /// The loader CSV, the delivery's settings and its CRM data set are kept beside the key
    /// messages (and an OCE delivery's `oce.json` beside its sequences).
    private static func sideFiles(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return lowered.hasSuffix(".csv") || lowered == VeevaDelivery.settingsFile || lowered == CRMDataSetFile.defaultName
            || lowered == OceSettings.fileName
    }

    /// The zip names (without `.zip`) the loader CSV marks as the shared resource.
    private static func sharedResourceNames(folder: URL, names: [String]) throws(PackageError) -> Set<String> {
        guard let csv = names.filter({ $0.lowercased().hasSuffix(".csv") }).first,
            let text = try? String(contentsOf: folder.appendingPathComponent(csv), encoding: .utf8)
        else { return [] }
        let rows = CSVText.rows(text)
        guard let header = rows.first?.map({ $0.trimmingSpaces().lowercased().replacingOccurrences(of: "slide.", with: "") }),
            let shared = header.firstIndex(of: VeevaKeyMessageOrder.Column.shared),
            let file = VeevaKeyMessageOrder.Column.fileName.lazy.compactMap({ header.firstIndex(of: $0) }).first
        else { return [] }
        var found = Set<String>()
        for row in rows.dropFirst() where shared < row.count && file < row.count {
            guard ["yes", "true", "1"].contains(row[shared].trimmingSpaces().lowercased()) else { continue }
            var name = row[file].trimmingSpaces()
            if name.lowercased().hasSuffix(".zip") { name = String(name.dropLast(4)) }
            found.insert(name)
        }
        return found
    }

    /// One inner zip, checked as a package, into `target`; a single top folder named like the
    /// zip (or, for the shared resource, `shared`) is dropped.
    private func unpackInner(_ zip: URL, named base: String, to target: URL) throws(PackageError) {
        let extractor = PackageExtractor(limits: limits)
        let paths = try extractor.filePaths(zip: zip, requiresStartSlide: false)
        let tops = Set(paths.map { String($0.prefix { $0 != "/" }) })
        if tops.count == 1, let top = tops.first, paths.allSatisfy({ $0.contains("/") }),
            top == base || top == VeevaDelivery.sharedFolder
        {
            let staging = target.deletingLastPathComponent().appendingPathComponent(".\(base).staging-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: staging) }
            _ = try extractor.extract(zip: zip, to: staging, requiresStartSlide: false)
            do {
                try FileManager.default.moveItem(at: staging.appendingPathComponent(top), to: target)
            } catch {
                throw .writeFailed(path: target.path, reason: SystemProblem(error).description)
            }
        } else {
            _ = try extractor.extract(zip: zip, to: target, requiresStartSlide: false)
        }
    }
}
