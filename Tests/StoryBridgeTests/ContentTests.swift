import Foundation
import Testing

@testable import StoryBridge

@Suite("Presentation content")
struct ContentTests {
    @Test("meta tags are read whatever the quoting, case and attribute order")
    func metaTags() {
        let html = """
            <HTML><head><!-- <meta name="clm" content="commented.html"> -->
            <META content='b.html' NAME='clm-swipe-next'>
            <meta name=clm-swipe-previous content=a.html>
            <meta name="clm" content=" a.html , b.html,, c.html ">
            <title> Slide One </title></head><body><meta name="clm" content="ignored.html"></body></HTML>
            """
        let metadata = SlideMetadata(html: html)
        #expect(metadata.swipeNext == "b.html")
        #expect(metadata.swipePrevious == "a.html")
        #expect(metadata.links == ["a.html", "b.html", "c.html"])
        #expect(metadata.title == "Slide One")
    }

    @Test("empty meta content means none")
    func emptyMeta() {
        let metadata = SlideMetadata(html: #"<meta name="clm-swipe-next" content=""><meta name="clm" content="">"#)
        #expect(metadata.swipeNext == nil)
        #expect(metadata.links.isEmpty)
    }

    @Test("a folder's root *.html files are its slides; sub-folder HTML and other files are not")
    func loadsFolder() throws {
        let folder = try TemporaryPresentation(
            slides: ["index.html": TemporaryPresentation.slide(links: ["b.html"]), "b.html": TemporaryPresentation.slide()],
            extraFiles: [
                "sub/page.html": "<html></html>", "mediafiles/film.mp4": "x", "mediafiles/notes.txt": "x",
                "mediafiles/Guide.PDF": "x", "readme.htm": "x",
            ])
        let presentation = try folder.load(id: 7)
        #expect(presentation.id == 7)
        #expect(presentation.slides.map(\.name) == ["b.html", "index.html"])
        #expect(presentation.mediaFiles.map(\.fileName) == ["Guide.PDF", "film.mp4"])
        #expect(presentation.name == folder.root.lastPathComponent)
    }

    @Test("a folder without index.html is refused with a clear message")
    func missingIndex() throws {
        let folder = try TemporaryPresentation(slides: ["start.html": "<html></html>"])
        #expect(throws: PresentationFolderError.missingIndex(folder.root.path)) {
            _ = try folder.load()
        }
    }

    @Test("the map is the tree from index.html over the linked slides, each slide once")
    func map() throws {
        let folder = try TemporaryPresentation(slides: [
            "index.html": TemporaryPresentation.slide(links: ["a.html", "b.html"]),
            "a.html": TemporaryPresentation.slide(links: ["index.html", "c.html"]),
            "b.html": TemporaryPresentation.slide(links: ["index.html", "c.html"]),
            "c.html": TemporaryPresentation.slide(links: ["a.html"]),
            "orphan.html": TemporaryPresentation.slide(links: ["index.html"]),
        ])
        let map = try folder.load().map
        #expect(map.json == ["index.html": ["a.html", "b.html"], "a.html": ["c.html"], "b.html": [], "c.html": []])
        #expect(map.parents["c.html"] == "a.html")
    }
}
