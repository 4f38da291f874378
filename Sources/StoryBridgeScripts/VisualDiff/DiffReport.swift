import Foundation
import StoryBridge

/// What a visual diff says: a short summary for the terminal and a self-contained HTML page
/// (pictures inline as `data:` URLs) with, for each changed slide, the before and after pictures
/// and the highlight of what changed, the most changed first.
package struct DiffReport: Sendable {
    package let result: VisualDiff.Result

    package init(_ result: VisualDiff.Result) {
        self.result = result
    }

    /// The terminal summary: one line per finding, then the counts.
    package var summary: String {
        var lines: [String] = ["\(result.before.label) -> \(result.after.label)"]
        for slide in result.changed {
            lines.append("  changed  \(slide.slide)  \(Self.percent(slide.comparison.differingFraction)) of pixels differ")
        }
        for slide in result.added { lines.append("  added    \(slide.slide)") }
        for slide in result.removed { lines.append("  removed  \(slide.slide)") }
        for slide in result.renamed { lines.append("  renamed  \(slide.from) -> \(slide.to)") }
        let quiet = result.filesWithoutVisibleChange
        for file in quiet { lines.append("  file \(file.kind.rawValue)  \(file.path) (no visible change of its own)") }
        lines.append(
            "\(result.changed.count) changed, \(result.added.count) added, \(result.removed.count) removed, "
                + "\(result.renamed.count) renamed, \(result.unchanged.count) unchanged; \(quiet.count) other files changed")
        return lines.joined(separator: "\n")
    }

    /// `0.43%`, with enough digits to tell a few pixels from none.
    static func percent(_ fraction: Double) -> String {
        let value = fraction * 100
        return value >= 1 ? String(format: "%.1f%%", value) : String(format: "%.3f%%", value)
    }

    /// The report page.
    package var html: String {
        let escape = HTMLText.escape
        func image(_ data: Data, _ alt: String) -> String {
            "<img src=\"data:image/png;base64,\(data.base64EncodedString())\" alt=\"\(escape(alt))\" width=\"\(result.size.width / 3)\">"
        }
        var sections: [String] = []
        if !result.changed.isEmpty {
            let rows = result.changed.map { slide in
                let region =
                    slide.comparison.changedRegion.map { "region \($0.map(String.init).joined(separator: ", ")) (x, y, width, height)" }
                    ?? ""
                let sizeNote = slide.comparison.sameSize ? "" : " — the pictures differ in size"
                return """
                    <section class="changed" data-slide="\(escape(slide.slide))"><h3>\(escape(slide.slide)) \
                    <span class="amount">\(Self.percent(slide.comparison.differingFraction)) of pixels differ</span></h3>
                    <p class="meta">\(slide.comparison.differingPixels) of \(slide.comparison.totalPixels) pixels; \(region)\(sizeNote)</p>
                    <div class="row"><figure>\(image(slide.before, "\(slide.slide) before"))<figcaption>before</figcaption></figure>
                    <figure>\(image(slide.after, "\(slide.slide) after"))<figcaption>after</figcaption></figure>
                    <figure>\(slide.comparison.highlightPNG.map { image($0, "\(slide.slide) changes") } ?? "")<figcaption>changes in red</figcaption></figure></div>
                    </section>
                    """
            }
            sections.append("<h2>Changed slides (\(result.changed.count))</h2>\n" + rows.joined(separator: "\n"))
        }
        func lone(_ title: String, _ slides: [VisualDiff.LoneSlide], _ kind: String) {
            guard !slides.isEmpty else { return }
            let figures = slides.map {
                "<figure class=\"\(kind)\" data-slide=\"\(escape($0.slide))\">\(image($0.image, $0.slide))<figcaption>\(escape($0.slide))</figcaption></figure>"
            }
            sections.append("<h2>\(title) (\(slides.count))</h2>\n<div class=\"row\">\(figures.joined(separator: "\n"))</div>")
        }
        lone("Added slides", result.added, "added")
        lone("Removed slides", result.removed, "removed")
        if !result.renamed.isEmpty {
            let figures = result.renamed.map {
                "<figure class=\"renamed\" data-slide=\"\(escape($0.to))\">\(image($0.image, $0.to))<figcaption>\(escape($0.from)) → \(escape($0.to))</figcaption></figure>"
            }
            sections.append(
                "<h2>Renamed slides (\(result.renamed.count))</h2>\n<div class=\"row\">\(figures.joined(separator: "\n"))</div>")
        }
        let quiet = result.filesWithoutVisibleChange
        if !quiet.isEmpty {
            let items = quiet.map { "<li class=\"file\"><code>\(escape($0.path))</code> \($0.kind.rawValue)</li>" }
            sections.append(
                "<h2>Files changed without a visible change of their own (\(quiet.count))</h2>\n<ul>\(items.joined(separator: "\n"))</ul>")
        }
        if !result.withinTolerance.isEmpty {
            let items = result.withinTolerance.map { "<li><code>\(escape($0.slide))</code> \(Self.percent($0.fraction))</li>" }
            sections.append("<h2>Differences within the tolerance</h2>\n<ul>\(items.joined(separator: "\n"))</ul>")
        }
        if sections.isEmpty { sections.append("<p class=\"nothing\">No slide changed.</p>") }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Visual diff: \(escape(result.before.label)) → \(escape(result.after.label))</title>
            <style>
            body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
            h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.5em;border-bottom:1px solid #ddd}
            .row{display:flex;flex-wrap:wrap;gap:12px}figure{margin:0}img{border:1px solid #bbb;display:block}
            figcaption,.meta{color:#555;font-size:.9em}.amount{color:#b00;font-weight:normal;margin-left:.5em}
            .counts{background:#f4f4f4;padding:.5em .8em;display:inline-block}
            </style></head><body>
            <h1>Visual diff: \(escape(result.before.label)) → \(escape(result.after.label))</h1>
            <p class="counts">\(result.changed.count) changed, \(result.added.count) added, \(result.removed.count) removed, \
            \(result.renamed.count) renamed, \(result.unchanged.count) unchanged; \(quiet.count) other files changed. \
            Viewport \(result.size); a pixel differs when a channel moves by more than \(result.tolerance.channel); \
            a slide changed when more than \(Self.percent(result.tolerance.pixels)) of its pixels differ.</p>
            \(sections.joined(separator: "\n"))
            </body></html>
            """
    }
}
