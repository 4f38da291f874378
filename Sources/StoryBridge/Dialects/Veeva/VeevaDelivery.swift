import Foundation

/// Veeva CRM / Vault CRM delivery rules, read from an unpacked delivery: one folder per key
/// message (`NAME/` holding `NAME.html`, else `index.html`, with `thumb.png`), the shared resource
/// in `shared/` (key messages reach it as `../shared/…`), and the key-message order
/// (``VeevaKeyMessageOrder``). Each key message's HTML file is one slide, named by its path
/// (`NAME/NAME.html`); the first in order opens the presentation. A folder of zips, or a zip of
/// zips, is unpacked into this shape first (``VeevaDeliveryUnpacker``).
package struct VeevaDelivery: DeliveryRules {
    package var dialect: DialectName { .veeva }

    /// The folder the shared resource is unpacked into, beside the key messages.
    static let sharedFolder = "shared"
    /// The delivery's own settings file: the key-message order and the CRM data set (both optional).
    static let settingsFile = "veeva.json"
    /// A key message's thumbnail, beside its HTML.
    static let thumbnailFile = "thumb.png"

    package init() {}

    func recognises(root: URL, entries: [String]) -> Bool {
        !keyMessageFolders(root: root, entries: entries).isEmpty
    }

    package func slides(in root: URL, entries: [String]) throws(PresentationFolderError) -> [Slide] {
        let folders = keyMessageFolders(root: root, entries: entries)
        guard !folders.isEmpty else {
            throw .unreadable(
                path: root.path,
                reason:
                    "no key message in it: a Veeva delivery holds one folder (or zip) per key message, NAME/NAME.html or NAME/index.html")
        }
        let order = try VeevaKeyMessageOrder.read(root: root, entries: entries, keyMessages: folders.map(\.name))
        var slides: [Slide] = []
        for name in order {
            guard let folder = folders.first(where: { $0.name == name }) else { continue }
            var slide = try Slide.read(folder.slide, in: root)
            // The thumbnail agencies put beside the key message's HTML (Veeva's `thumb.png`).
            let thumbnail = "\(folder.name)/\(Self.thumbnailFile)"
            if FileManager.default.isPlainFile(root.appendingPathComponent(thumbnail)) { slide.thumbnail = thumbnail }
            slides.append(slide)
        }
        return slides
    }

    /// A key message's folder and its HTML file, relative to the delivery's root.
    struct KeyMessageFolder: Sendable, Hashable {
        package var name: String
        package var slide: String
    }

    /// The key-message folders of the delivery: each folder but `shared/` that holds `NAME.html`
    /// or `index.html`.
    func keyMessageFolders(root: URL, entries: [String]) -> [KeyMessageFolder] {
        entries.sorted().compactMap { name in
            guard name != Self.sharedFolder, !name.hasPrefix("."), FileManager.default.isFolder(root.appendingPathComponent(name))
            else { return nil }
            for file in ["\(name).html", "index.html"]
            where FileManager.default.isPlainFile(root.appendingPathComponent(name).appendingPathComponent(file)) {
                return KeyMessageFolder(name: name, slide: "\(name)/\(file)")
            }
            return nil
        }
    }

    /// The key message a request names (`KM_B.zip`, `KM_B`, or its HTML file's name), matched
    /// exactly first, then without regard to case.
    package static func slide(forKeyMessage keyMessage: String, in presentation: Presentation) -> String? {
        var name = keyMessage.trimmingSpaces()
        if name.lowercased().hasSuffix(".zip") { name = String(name.dropLast(4)) }
        if name.lowercased().hasSuffix(".html") { name = String(name.dropLast(5)) }
        let folderOf = { (slide: String) in String(slide.prefix { $0 != "/" }) }
        if let exact = presentation.slides.first(where: { folderOf($0.name) == name }) { return exact.name }
        return presentation.slides.first { folderOf($0.name).lowercased() == name.lowercased() }?.name
    }
}
