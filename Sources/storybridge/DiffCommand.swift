import ArgumentParser
import Foundation
import StoryBridge
import StoryBridgeScripts

struct DiffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare the slides of two revisions of a deck on screen and write an HTML report.",
        discussion: """
            Both revisions are screenshot in headless Chromium as 'storybridge shots' takes them, slides are \
            matched by name and their pictures compared pixel by pixel (in the browser, on a canvas). The report \
            lists the slides added, removed, renamed (same HTML file, new name) and changed, with the fraction of \
            pixels that differ, the most changed first; each changed slide shows before, after and the changed \
            pixels in red. Files that changed without a visible change of their own (scripts, styles, data) are \
            listed too. The report is one self-contained HTML file.

            --from and --to each take a revision number of the installed deck ID (the served revision or one kept \
            on disk: sync and serve --sync-every keep --keep-revisions earlier revisions, default 1), a \
            presentation folder, or a package zip. A revision that is not on disk is refused with the list of \
            those that are. storybridge sync --diff-report DIR makes this report for every deck a sync updates.

            Exit status: 0 no slide changed beyond the tolerance, 1 a slide was added, removed, renamed or \
            changed, another value when the comparison could not be made.
            """)

    @Argument(help: "The installed deck's id (needed when --from or --to is a revision number).")
    var id: Int?

    @Option(help: "The old revision: a revision number, a presentation folder, or a package zip.")
    var from: String

    @Option(help: "The new revision: a revision number, a presentation folder, or a package zip.")
    var to: String

    @Option(help: "The HTML report's file.")
    var out: String = "diff-report.html"

    @Option(help: "A pixel differs when a colour channel moves by more than this (0 to 255).")
    var channelTolerance: Int = 0

    @Option(help: "A slide has changed when more than this fraction of its pixels differ (0 to 1; 0: any pixel).")
    var tolerance: Double = 0

    @OptionGroup var screenshots: ScreenshotOptions
    @OptionGroup var library: LibraryOptions

    /// Exit status when a slide changed.
    static let changedStatus: Int32 = 1

    func validate() throws {
        guard (0...255).contains(channelTolerance) else { throw ValidationError("--channel-tolerance must be 0 to 255") }
        guard (0...1).contains(tolerance) else { throw ValidationError("--tolerance must be a fraction from 0 to 1") }
    }

    func run() async throws {
        let before = try DeckFiles.resolve(from, deckId: id, library: library)
        defer { before.cleanUp() }
        let after = try DeckFiles.resolve(to, deckId: id, library: library)
        defer { after.cleanUp() }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-diff-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let browser = try await screenshots.launchBrowser()
        // Closed (its exit awaited) whether the body returns or throws.
        try await browser.closingAfter { browser in
            let diff = VisualDiff(
                browser: browser, options: screenshots.shooterOptions,
                tolerance: .init(channel: channelTolerance, pixels: tolerance))
            let result: VisualDiff.Result
            do {
                result = try await diff.compare(before, after, workFolder: work, progressLabel: "diff")
            } catch {
                throw CommandFailure(ErrorWording.describe(error), status: CommandFailure.badInput)
            }
            let report = DiffReport(result)
            do {
                try report.html.write(toFile: out, atomically: true, encoding: .utf8)
            } catch {
                throw CommandFailure(
                    SystemFailure("cannot write the report", out, error: error).description, status: CommandFailure.storage)
            }
            Terminal.say(report.summary)
            Terminal.say("report: \(out)")
            if result.hasVisibleChanges { throw ExitCode(Self.changedStatus) }
        }
    }
}
