import Foundation

/// A root HTML file of a presentation, with the navigation its meta tags declare.
package struct Slide: Sendable, Hashable, Codable {
    /// The file name, for example `index.html`.
    package var name: String
    /// What its meta tags say.
    package var metadata: SlideMetadata
    /// Its thumbnail picture as the delivery has it, relative to the presentation's root (a Veeva
    /// key message's `thumb.png`, an OCE slide's `NN_thumbnail.jpg`); `nil` when it has none.
    package var thumbnail: String?

    package init(name: String, metadata: SlideMetadata, thumbnail: String? = nil) {
        self.name = name
        self.metadata = metadata
        self.thumbnail = thumbnail
    }
}

/// A file in the presentation's `mediafiles/` folder.
package struct MediaFile: Sendable, Hashable, Codable {
    /// The file name inside `mediafiles/`.
    package var fileName: String
    /// A human title (defaults to the file name without its extension).
    package var title: String

    package init(fileName: String, title: String) {
        self.fileName = fileName
        self.title = title
    }

    /// The extensions PROTOCOL.md §4 allows in `mediafiles/`.
    static let allowedExtensions: Set<String> = ["mp3", "wav", "mp4", "ogg", "webm", "pdf"]
}

/// One presentation: a folder of slides and assets, plus its catalog facts.
public struct Presentation: Sendable, Hashable {
    /// The numeric id (`presId`).
    package var id: Int
    package var name: String
    package var shortDescription: String
    package var longDescription: String
    package var revision: Int
    package var order: Int
    /// The folder that holds `index.html`.
    package var root: URL
    /// The root slides, sorted by name (`index.html` included).
    package var slides: [Slide]
    /// The files of `mediafiles/`.
    package var mediaFiles: [MediaFile]
    /// The content service's flags: listed, blocked, confirmation on close.
    package var flags: PresentationFlags
    /// The CLM platform whose content this is: its delivery rules, client adapter and modules.
    package var dialect: DialectName = .storyclm
    /// The CRM data set that answers a Veeva deck's data requests, when the delivery has one.
    package var crmDataSet: URL?

    /// The start slide's name.
    package static let startSlide = "index.html"

    package init(
        id: Int, name: String, shortDescription: String = "", longDescription: String = "", revision: Int = 1,
        order: Int = 0, root: URL, slides: [Slide], mediaFiles: [MediaFile], flags: PresentationFlags = .defaults
    ) {
        self.id = id
        self.name = name
        self.shortDescription = shortDescription
        self.longDescription = longDescription
        self.revision = revision
        self.order = order
        self.root = root
        self.slides = slides
        self.mediaFiles = mediaFiles
        self.flags = flags
    }

    /// The slide that opens the presentation: `index.html` for StoryCLM, the first slide in the
    /// presentation's order for the other dialects.
    package var entrySlide: String {
        dialect == .storyclm ? Self.startSlide : (slides.first?.name ?? Self.startSlide)
    }

    /// The slide named `name`, if the presentation has it.
    package func slide(named name: String) -> Slide? {
        slides.first { $0.name == name }
    }

    /// Whether `name` is a slide of this presentation.
    package func hasSlide(_ name: String) -> Bool { slide(named: name) != nil }

    /// Whether a path relative to the presentation root names a slide: a root `*.html` file.
    static func isSlidePath(_ relativePath: String) -> Bool {
        !relativePath.contains("/") && relativePath.hasSuffix(".html") && relativePath.count > 5
    }
}
