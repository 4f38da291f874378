import Foundation
import StoryBridge
import StoryBridgeScripts

/// What a visual diff report file (``DiffReport/html``) shows once a real browser opened it: the
/// changed slides' sections, how many of their pictures decoded at the screenshot size, and the
/// pictures' captions. Tests of `storybridge diff` and `sync --diff-report` read their reports
/// with it.
package struct DiffReportPage: Sendable, Equatable {
    /// The `data-slide` of each changed slide's section, in page order.
    package var changedSlides: [String]
    /// The pictures of the changed slides' sections that decoded at the expected size.
    package var decodedImages: Int
    /// The captions of those pictures, in page order ("before", "after", "changes in red" per slide).
    package var captions: [String]

    /// Opens `file` in a new tab of `browser` and reads what it shows; `size` is the screenshots'
    /// viewport, the natural size every picture must decode to.
    package static func open(_ file: URL, in browser: HeadlessChromium, size: ViewportSize) async throws -> DiffReportPage {
        let page = try await browser.newPage()
        do {
            try await page.navigate(to: file.absoluteString)
            let shown = try await page.evaluate(
                """
                (function () {
                  var images = Array.prototype.slice.call(document.querySelectorAll('section.changed img'));
                  return { slides: Array.prototype.map.call(document.querySelectorAll('section.changed'), function (s) { return s.getAttribute('data-slide'); }),
                           decoded: images.filter(function (i) { return i.complete && i.naturalWidth === \(size.width) && i.naturalHeight === \(size.height); }).length,
                           captions: Array.prototype.map.call(document.querySelectorAll('section.changed figcaption'), function (c) { return c.textContent; }) };
                })()
                """)
            await page.close()
            return DiffReportPage(
                changedSlides: (shown["slides"]?.arrayValue ?? []).compactMap(\.stringValue),
                decodedImages: shown["decoded"]?.intValue ?? 0,
                captions: (shown["captions"]?.arrayValue ?? []).compactMap(\.stringValue))
        } catch {
            await page.close()
            throw error
        }
    }
}
