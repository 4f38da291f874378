import Foundation

/// A root HTML file of a presentation, with the navigation its meta tags declare.
public struct Slide: Sendable, Hashable, Codable {
    /// The file name, for example `index.html`.
    public var name: String
    /// What its meta tags say.
    public var metadata: SlideMetadata

    public init(name: String, metadata: SlideMetadata) {
        self.name = name
        self.metadata = metadata
    }
}

/// A file in the presentation's `mediafiles/` folder.
public struct MediaFile: Sendable, Hashable, Codable {
    /// The file name inside `mediafiles/`.
    public var fileName: String
    /// A human title (defaults to the file name without its extension).
    public var title: String

    public init(fileName: String, title: String) {
        self.fileName = fileName
        self.title = title
    }

    /// The extensions PROTOCOL.md §4 allows in `mediafiles/`.
    public static let allowedExtensions: Set<String> = ["mp3", "wav", "mp4", "ogg", "webm", "pdf"]
}

/// One presentation: a folder of slides and assets, plus its catalog facts.
public struct Presentation: Sendable, Hashable {
    /// The numeric id (`presId`).
    public var id: Int
    public var name: String
    public var shortDescription: String
    public var longDescription: String
    public var revision: Int
    public var order: Int
    /// The folder that holds `index.html`.
    public var root: URL
    /// The root slides, sorted by name (`index.html` included).
    public var slides: [Slide]
    /// The files of `mediafiles/`.
    public var mediaFiles: [MediaFile]
    /// The content service's flags: listed, blocked, confirmation on close.
    public var flags: PresentationFlags

    /// The start slide's name.
    public static let startSlide = "index.html"

    public init(
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

    /// The slide named `name`, if the presentation has it.
    public func slide(named name: String) -> Slide? {
        slides.first { $0.name == name }
    }

    /// Whether `name` is a slide of this presentation.
    public func hasSlide(_ name: String) -> Bool { slide(named: name) != nil }

    /// Whether a path relative to the presentation root names a slide: a root `*.html` file.
    public static func isSlidePath(_ relativePath: String) -> Bool {
        !relativePath.contains("/") && relativePath.hasSuffix(".html") && relativePath.count > 5
    }
}
