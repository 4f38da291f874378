import Foundation

/// How a dialect recognises an unpacked delivery and reads its slides: which HTML files are slides
/// (and so get the client injected), in which order, and which one opens the presentation.
protocol DeliveryRules: Sendable {
    /// The dialect these rules belong to.
    var dialect: DialectName { get }

    /// Whether the folder whose root holds `entries` (names, folders included) looks like this
    /// dialect's delivery.
    func recognises(root: URL, entries: [String]) -> Bool

    /// The slides of the delivery in `root`, in the presentation's order; the first opens it.
    func slides(in root: URL, entries: [String]) throws(PresentationFolderError) -> [Slide]
}

/// Finds the dialect of a delivery.
enum DialectDetection {
    /// The dialect of the unpacked delivery in `root`: StoryCLM when its root holds `index.html`
    /// (today's rule, checked first so every StoryCLM package keeps its meaning), else the first
    /// other dialect whose rules recognise it; `nil` when none does.
    static func detect(root: URL, entries: [String]) -> DialectName? {
        for dialect in DialectName.allCases where dialect.rules.recognises(root: root, entries: entries) {
            return dialect
        }
        return nil
    }
}

extension FileManager {
    /// Whether `url` is a folder (symbolic links followed).
    package func isFolder(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Whether `url` is a file, not a folder.
    func isPlainFile(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return fileExists(atPath: url.path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }
}

extension Slide {
    /// Reads the slide at `relative` inside `root`, with its meta tags.
    static func read(_ relative: String, in root: URL) throws(PresentationFolderError) -> Slide {
        let file = root.appendingPathComponent(relative)
        let html: String
        do {
            html = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        } catch {
            throw .unreadable(path: file.path, reason: SystemProblem(error).description)
        }
        return Slide(name: relative, metadata: SlideMetadata(html: html))
    }
}
