import Foundation

/// StoryCLM's delivery rules, unchanged from before dialects: a folder with `index.html` in its
/// root; every root `*.html` file is a slide, sorted by name; `index.html` opens it.
struct StoryCLMDelivery: DeliveryRules {
    var dialect: DialectName { .storyclm }

    init() {}

    func recognises(root: URL, entries: [String]) -> Bool {
        entries.contains(Presentation.startSlide)
    }

    func slides(in root: URL, entries: [String]) throws(PresentationFolderError) -> [Slide] {
        guard entries.contains(Presentation.startSlide) else { throw .missingIndex(root.path) }
        var slides: [Slide] = []
        for entry in entries.sorted() where Presentation.isSlidePath(entry) {
            guard FileManager.default.isPlainFile(root.appendingPathComponent(entry)) else { continue }
            slides.append(try Slide.read(entry, in: root))
        }
        return slides
    }
}
