import Foundation

/// IQVIA OCE delivery rules, read from an unpacked delivery: one folder per sequence (a sequence
/// zip unpacked into a folder named like it), each holding its slides at its root as
/// `01_name.html`, `02_name.html`… (thumbnails `01_thumbnail.jpg` beside them). A sequence's
/// slides are its root HTML files whose names start with digits and `_`, in numeric order; the
/// sequences follow `oce.json`'s `order`, else name order (``OceSettings``). Each slide is named
/// by its path (`Intro/01_intro.html`); the first slide of the first sequence opens the
/// presentation. A folder of sequence zips, or a zip of them, is unpacked into this shape first
/// (the same unpacker as Veeva's key messages, ``VeevaDeliveryUnpacker``).
struct OceDelivery: DeliveryRules {
    var dialect: DialectName { .oce }

    init() {}

    func recognises(root: URL, entries: [String]) -> Bool {
        !sequenceFolders(root: root, entries: entries).isEmpty
    }

    func slides(in root: URL, entries: [String]) throws(PresentationFolderError) -> [Slide] {
        var slides: [Slide] = []
        for sequence in try sequences(in: root, entries: entries) {
            for page in sequence.slides {
                var slide = try Slide.read(page, in: root)
                slide.thumbnail = Self.thumbnail(of: page, in: root)
                slides.append(slide)
            }
        }
        guard !slides.isEmpty else {
            throw .unreadable(
                path: root.path,
                reason: "no sequence in it: an OCE delivery holds one folder (or zip) per sequence, with slides named NN_name.html")
        }
        return slides
    }

    /// The thumbnail of the slide at `page` (`SEQ/NN_name.html`): `SEQ/NN_thumbnail.jpg` (or
    /// `.png`) when the sequence has it.
    static func thumbnail(of page: String, in root: URL) -> String? {
        let folder = (page as NSString).deletingLastPathComponent
        let file = (page as NSString).lastPathComponent
        guard let underscore = file.firstIndex(of: "_") else { return nil }
        let number = file[..<underscore]
        for suffix in ["jpg", "png"] {
            let name = "\(number)_thumbnail.\(suffix)"
            let path = folder.isEmpty ? name : "\(folder)/\(name)"
            if FileManager.default.isPlainFile(root.appendingPathComponent(path)) { return path }
        }
        return nil
    }

    /// One sequence: its folder and its slides' paths (relative to the delivery's root), in order.
    struct SequenceFolder: Sendable, Hashable {
        var folder: String
        var slides: [String]
    }

    /// The sequences of the delivery in `root`, in the presentation's order.
    func sequences(in root: URL, entries: [String]) throws(PresentationFolderError) -> [SequenceFolder] {
        let found = sequenceFolders(root: root, entries: entries)
        let names = found.map(\.folder)
        var listed: [String] = []
        if entries.contains(OceSettings.fileName) {
            let file = root.appendingPathComponent(OceSettings.fileName)
            let settings = try OceSettings.read(file)
            listed = settings.order ?? []
            for name in listed where !names.contains(name) {
                throw .unreadable(
                    path: file.path,
                    reason: "order names '\(name)', which the delivery does not hold (it holds \(names.joined(separator: ", ")))")
            }
            for (id, name) in settings.sequences where !names.contains(name) {
                throw .unreadable(path: file.path, reason: "sequences.\(id) names '\(name)', which the delivery does not hold")
            }
        }
        var seen = Set<String>()
        let ordered = listed.filter { seen.insert($0).inserted } + names.filter { !seen.contains($0) }
        return ordered.compactMap { name in found.first { $0.folder == name } }
    }

    /// The folders of the delivery that hold at least one `NN_name.html` slide, in name order.
    func sequenceFolders(root: URL, entries: [String]) -> [SequenceFolder] {
        entries.sorted().compactMap { name in
            let folder = root.appendingPathComponent(name)
            guard !name.hasPrefix("."), FileManager.default.isFolder(folder),
                let files = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
            else { return nil }
            let pages = files.filter { Self.slideNumber($0) != nil && FileManager.default.isPlainFile(folder.appendingPathComponent($0)) }
                .sorted { (Self.slideNumber($0)!, $0) < (Self.slideNumber($1)!, $1) }
            return pages.isEmpty ? nil : SequenceFolder(folder: name, slides: pages.map { "\(name)/\($0)" })
        }
    }

    /// The number of a slide file (`02_efficacy.html` → 2); `nil` for any other file.
    static func slideNumber(_ file: String) -> Int? {
        guard file.lowercased().hasSuffix(".html") else { return nil }
        let digits = file.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, file.dropFirst(digits.count).first == "_" else { return nil }
        return Int(digits)
    }

    /// Whether a zip's file paths are one OCE sequence: slides `NN_name.html` at its root.
    static func isSequenceZip(_ paths: [String]) -> Bool {
        paths.contains { !$0.contains("/") && slideNumber($0) != nil }
    }
}
