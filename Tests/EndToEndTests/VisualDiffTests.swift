import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

@Suite("Visual diff in headless Chromium", .serialized)
struct VisualDiffTests {
    static let size = ViewportSize(width: 640, height: 480)

    func diff(_ before: URL, _ after: URL, tolerance: VisualDiff.Tolerance = .init()) async throws -> VisualDiff.Result {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("sb-diff-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let diff = VisualDiff(browser: try await SharedBrowser.shared.get(), options: .init(size: Self.size), tolerance: tolerance)
        return try await diff.compare(
            DeckRevision(folder: before, catalog: .init(id: 3, name: "deck"), label: "revision 1"),
            DeckRevision(folder: after, catalog: .init(id: 3, name: "deck"), label: "revision 2"), workFolder: work)
    }

    @Test("one slide that changed colour is the one changed slide; the report page shows its three pictures in Chromium")
    func oneSlideChangedColour() async throws {
        let deck = VisualDeck.generated(count: 6)
        var recoloured = deck
        recoloured.slides["slide4.html"] = VisualDeck.block("#e91e63")
        let before = try deck.write()
        let after = try recoloured.write()
        defer {
            try? FileManager.default.removeItem(at: before)
            try? FileManager.default.removeItem(at: after)
        }
        let result = try await diff(before, after)
        #expect(result.changed.map(\.slide) == ["slide4.html"])
        #expect(result.added.isEmpty && result.removed.isEmpty && result.renamed.isEmpty)
        #expect(result.unchanged.count == 6)
        #expect(result.files == [FileChange(path: "slide4.html", kind: .modified)])
        #expect(result.filesWithoutVisibleChange.isEmpty)
        #expect(result.hasVisibleChanges)
        let comparison = try #require(result.changed.first?.comparison)
        // The block is 400 x 300 of 640 x 480 pixels.
        #expect(comparison.differingPixels == 400 * 300)
        #expect(comparison.changedRegion == [100, 80, 400, 300])
        let report = DiffReport(result)
        #expect(report.summary.contains("changed  slide4.html  39.1% of pixels differ"))
        #expect(!report.summary.contains("slide3.html"))

        // The page itself, opened in the browser: every picture decodes at its size.
        let file = before.appendingPathComponent("report.html")
        try report.html.write(to: file, atomically: true, encoding: .utf8)
        let shown = try await DiffReportPage.open(file, in: SharedBrowser.shared.get(), size: Self.size)
        #expect(shown.changedSlides == ["slide4.html"])
        #expect(shown.decodedImages == 3)
        #expect(shown.captions == ["before", "after", "changes in red"])
    }

    @Test("identical revisions report nothing")
    func identical() async throws {
        let folder = try VisualDeck.generated(count: 3).write()
        let copy = try VisualDeck.generated(count: 3).write()
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: copy)
        }
        let result = try await diff(folder, copy)
        #expect(!result.hasVisibleChanges)
        #expect(result.changed.isEmpty && result.files.isEmpty && result.withinTolerance.isEmpty)
        #expect(result.unchanged.count == 4)
        #expect(DiffReport(result).html.contains("No slide changed."))
    }

    @Test("added, removed and renamed slides, a script changed without a visible change, and a change within the tolerance")
    func addedRemovedRenamed() async throws {
        var deck = VisualDeck.generated(count: 4)
        deck.files["js/data.js"] = "var figures = [1, 2, 3];"
        var next = deck
        next.slides["slide5.html"] = VisualDeck.block("#123456")
        next.slides["slide2.html"] = nil
        next.slides["slide3-new.html"] = next.slides.removeValue(forKey: "slide3.html")
        next.files["js/data.js"] = "var figures = [1, 2, 4];"
        // A one-pixel-wide change of slide4: 300 of 307,200 pixels (0.1%).
        next.slides["slide4.html"] = deck.slides["slide4.html"]!.replacingOccurrences(of: "width:400px", with: "width:401px")
        let before = try deck.write()
        let after = try next.write()
        defer {
            try? FileManager.default.removeItem(at: before)
            try? FileManager.default.removeItem(at: after)
        }
        let result = try await diff(before, after, tolerance: .init(pixels: 0.002))
        #expect(result.added.map(\.slide) == ["slide5.html"])
        #expect(result.removed.map(\.slide) == ["slide2.html"])
        #expect(result.renamed.map { "\($0.from) -> \($0.to)" } == ["slide3.html -> slide3-new.html"])
        #expect(result.changed.isEmpty)
        #expect(result.withinTolerance.map(\.slide) == ["slide4.html"])
        #expect(
            result.filesWithoutVisibleChange == [
                FileChange(path: "js/data.js", kind: .modified), FileChange(path: "slide4.html", kind: .modified),
            ])
        let strict = try await diff(before, after)
        #expect(strict.changed.map(\.slide) == ["slide4.html"])
        #expect(strict.changed.first?.comparison.differingPixels == 300)
    }
}
