import Foundation
import StoryBridge

/// Compares the slides of two revisions of a deck: screenshots both with ``SlideShooter`` in one
/// browser, matches the slides by name, and compares the pictures of the slides both have with
/// ``PixelComparer``. A slide only the old revision has whose HTML file the new one has under
/// another name is *renamed*; the deck's other file changes are listed too.
package struct VisualDiff: Sendable {
    /// What counts as a change.
    package struct Tolerance: Sendable {
        /// A pixel differs when a colour channel moves by more than this (0 to 255).
        package var channel: Int
        /// A slide has changed when more than this fraction of its pixels differ (0 to 1).
        package var pixels: Double

        package init(channel: Int = 0, pixels: Double = 0) {
            self.channel = channel
            self.pixels = pixels
        }
    }

    /// A slide both revisions have whose picture differs beyond the tolerance.
    package struct ChangedSlide: Sendable {
        package var slide: String
        package var comparison: PixelComparer.Comparison
        package var before: Data
        package var after: Data
    }

    /// A slide only one revision has, with its picture.
    package struct LoneSlide: Sendable {
        package var slide: String
        package var image: Data
    }

    /// A slide whose HTML file is the same in both revisions under another name.
    package struct RenamedSlide: Sendable {
        package var from: String
        package var to: String
        package var image: Data
    }

    /// Everything the diff found.
    package struct Result: Sendable {
        package var before: DeckRevision
        package var after: DeckRevision
        package var tolerance: Tolerance
        package var size: ViewportSize
        /// Changed slides, the most changed first.
        package var changed: [ChangedSlide]
        package var added: [LoneSlide]
        package var removed: [LoneSlide]
        package var renamed: [RenamedSlide]
        /// Slides both revisions have that look the same (within the tolerance).
        package var unchanged: [String]
        /// Slides whose pixels differ but within the tolerance, with the fraction that differs.
        package var withinTolerance: [(slide: String, fraction: Double)]
        /// Every file added, removed or modified, slides included.
        package var files: [FileChange]

        /// Whether any slide was added, removed, renamed or changed beyond the tolerance.
        package var hasVisibleChanges: Bool { !(changed.isEmpty && added.isEmpty && removed.isEmpty && renamed.isEmpty) }

        /// The changed files that no slide listed above accounts for: scripts, styles, data, media,
        /// and slides whose file changed while their picture did not.
        package var filesWithoutVisibleChange: [FileChange] {
            let shown = Set(changed.map(\.slide) + added.map(\.slide) + removed.map(\.slide) + renamed.flatMap { [$0.from, $0.to] })
            return files.filter { !shown.contains($0.path) }
        }
    }

    package let browser: HeadlessChromium
    package let options: SlideShooter.Options
    package let tolerance: Tolerance

    package init(browser: HeadlessChromium, options: SlideShooter.Options = .init(), tolerance: Tolerance = Tolerance()) {
        self.browser = browser
        self.options = options
        self.tolerance = tolerance
    }

    /// Called after each slide taken: the side ("before" or "after"), slides done, slides in all, the slide.
    package typealias Progress = @Sendable (_ side: String, _ done: Int, _ total: Int, _ slide: String) -> Void

    /// Screenshots both revisions into `workFolder` (`before/` and `after/`) and compares them.
    package func compare(
        _ before: DeckRevision, _ after: DeckRevision, workFolder: URL, progress: Progress? = nil
    ) async throws -> Result {
        let shooter = SlideShooter(browser: browser, options: options)
        let beforeFolder = workFolder.appendingPathComponent("before")
        let afterFolder = workFolder.appendingPathComponent("after")
        let beforeIndex = try await shooter.shoot(presentationIn: before.folder, catalog: before.catalog, to: beforeFolder) {
            progress?("before", $0, $1, $2)
        }
        let afterIndex = try await shooter.shoot(presentationIn: after.folder, catalog: after.catalog, to: afterFolder) {
            progress?("after", $0, $1, $2)
        }
        func image(_ folder: URL, _ entry: ShotsIndex.Entry) throws -> Data {
            try Data(contentsOf: folder.appendingPathComponent(entry.image))
        }
        func html(_ deck: DeckRevision, _ slide: String) -> Data? {
            try? Data(contentsOf: deck.folder.appendingPathComponent(slide))
        }
        var result = Result(
            before: before, after: after, tolerance: tolerance, size: options.size, changed: [], added: [], removed: [],
            renamed: [], unchanged: [], withinTolerance: [], files: DeckFileList.changes(from: before.folder, to: after.folder))
        var onlyAfter = afterIndex.slides.filter { beforeIndex.entry(for: $0.slide) == nil }
        let comparer = try await PixelComparer.open(in: browser, channelTolerance: tolerance.channel)
        do {
            for entry in beforeIndex.slides {
                let old = try image(beforeFolder, entry)
                guard let counterpart = afterIndex.entry(for: entry.slide) else {
                    let content = html(before, entry.slide)
                    if let match = onlyAfter.firstIndex(where: { content != nil && html(after, $0.slide) == content }) {
                        result.renamed.append(
                            RenamedSlide(from: entry.slide, to: onlyAfter[match].slide, image: try image(afterFolder, onlyAfter[match])))
                        onlyAfter.remove(at: match)
                    } else {
                        result.removed.append(LoneSlide(slide: entry.slide, image: old))
                    }
                    continue
                }
                let new = try image(afterFolder, counterpart)
                if old == new {
                    result.unchanged.append(entry.slide)
                    continue
                }
                let comparison = try await comparer.compare(before: old, after: new)
                if comparison.differingPixels == 0 {
                    result.unchanged.append(entry.slide)
                } else if comparison.sameSize && comparison.differingFraction <= tolerance.pixels {
                    result.unchanged.append(entry.slide)
                    result.withinTolerance.append((entry.slide, comparison.differingFraction))
                } else {
                    result.changed.append(ChangedSlide(slide: entry.slide, comparison: comparison, before: old, after: new))
                }
            }
            for entry in onlyAfter { result.added.append(LoneSlide(slide: entry.slide, image: try image(afterFolder, entry))) }
        } catch {
            await comparer.close()
            throw error
        }
        await comparer.close()
        result.changed.sort { $0.comparison.differingFraction > $1.comparison.differingFraction }
        return result
    }
}
