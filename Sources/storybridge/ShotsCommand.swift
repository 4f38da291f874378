import ArgumentParser
import Foundation
import StoryBridge
import StoryBridgeScripts

/// The options `shots` and `diff` share: the viewport, how long a slide may take to settle, the browser.
struct ScreenshotOptions: ParsableArguments {
    @Option(help: "The browser viewport, WIDTHxHEIGHT in CSS pixels (one device pixel each).")
    var size: String = "1024x768"

    @Option(
        help: ArgumentHelp(
            "Seconds to keep ending animations that start as others end.",
            discussion: "Finite animations jump to their end at once (the picture waiting would give), endless ones stop at their start."))
    var animationLimit: Double = 2

    @Option(help: "Seconds to wait for a slide's load event and the answers to the bridge calls it made at load.")
    var settleTimeout: Double = 10

    @Option(help: "The Chromium binary (default: $STORYBRIDGE_CHROMIUM, then chromium on PATH).")
    var browser: String?

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Take slides with two tabs in turn: one is captured while the other settles the next slide.",
            discussion: "The same pictures, files and order as one tab; --no-pipeline uses one tab for both."))
    var pipeline = true

    func validate() throws {
        guard ViewportSize(parsing: size) != nil else {
            throw ValidationError("--size '\(size)' is not WIDTHxHEIGHT (e.g. 1024x768, each 1 to 8192)")
        }
        guard animationLimit >= 0, animationLimit <= 60 else { throw ValidationError("--animation-limit must be 0 to 60 seconds") }
        guard settleTimeout > 0, settleTimeout <= 300 else {
            throw ValidationError("--settle-timeout must be above 0 and at most 300 seconds")
        }
    }

    var shooterOptions: SlideShooter.Options {
        SlideShooter.Options(
            size: ViewportSize(parsing: size) ?? .standard, animationLimit: .milliseconds(Int(animationLimit * 1000)),
            settleTimeout: .milliseconds(Int(settleTimeout * 1000)), pipelined: pipeline)
    }

    func launchBrowser() async throws -> HeadlessChromium {
        do {
            return try await HeadlessChromium.launch(binary: browser, extraArguments: ["--hide-scrollbars"])
        } catch {
            throw CommandFailure(ErrorWording.describe(error), status: CommandFailure.unreachable)
        }
    }
}

struct ShotsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shots",
        abstract: "Screenshot every slide of a deck in headless Chromium: one PNG per slide and an index.",
        discussion: """
            DECK is an installed presentation's id (see: storybridge list), a presentation folder or a package \
            zip; --revision takes an earlier revision of an installed deck that sync kept on disk. The slides are taken in map order (from index.html along the slides' links), then the slides \
            no link reaches, by name. Each slide is taken once it has settled: its load event fired, the bridge \
            calls it made at load were answered and its fonts loaded; then its animations are brought to rest: \
            finite ones jump to their end (the picture waiting for them would give, without the wait), endless \
            ones stop at their start, and ones started as others end are ended in turn for up to \
            --animation-limit seconds. The viewer chrome is hidden. The output folder gets NAME.png per slide, \
            index.json (slides, titles, timings, anything that did not settle) and index.html to browse them.

            --timing first loads every slide without screenshots in the same browser and prints both times.
            """)

    @Argument(help: "An installed presentation's id, a presentation folder, or a package zip.")
    var deck: String

    @Option(
        help: ArgumentHelp(
            "The revision of an installed deck to take (default: the served one).",
            discussion:
                "The served revision or one kept on disk by sync's --keep-revisions; a revision not on disk is refused with those that are."
        ))
    var revision: Int?

    @Option(help: "The output folder (default: shots-ID-rREVISION in the current folder).")
    var out: String?

    @Flag(help: "Also load every slide once without screenshots and print both times.")
    var timing = false

    @OptionGroup var screenshots: ScreenshotOptions
    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let files = try DeckFiles.resolveDeck(deck, revision: revision, library: library)
        defer { files.cleanUp() }
        let output = URL(fileURLWithPath: out ?? "shots-\(files.catalog.id)-r\(files.catalog.revision)")
        let browser = try await screenshots.launchBrowser()
        // Closed (its exit awaited) whether the body returns or throws.
        try await browser.closingAfter { browser in
            let shooter = SlideShooter(browser: browser, options: screenshots.shooterOptions)
            var plainMilliseconds: Int?
            if timing {
                plainMilliseconds = try await shooter.loadOnly(presentationIn: files.folder, catalog: files.catalog)
            }
            let progress = SlideProgress(label: "shots")
            let index: ShotsIndex
            do {
                index = try await shooter.shoot(presentationIn: files.folder, catalog: files.catalog, to: output) {
                    progress.update(done: $0, total: $1, slide: $2)
                }
                progress.finish()
            } catch {
                progress.finish()
                throw CommandFailure(ErrorWording.describe(error), status: CommandFailure.badInput)
            }
            Terminal.say("\(index.slides.count) slides of \(files.label) at \(index.size) in \(output.path) (\(index.milliseconds) ms)")
            for entry in index.slides where !entry.unansweredCommands.isEmpty {
                Terminal.warn("warning: \(entry.slide) was taken with unanswered: \(entry.unansweredCommands.joined(separator: ", "))")
            }
            if let plainMilliseconds {
                let ratio = Double(index.milliseconds) / Double(max(plainMilliseconds, 1))
                Terminal.say(
                    "timing: loading only \(plainMilliseconds) ms, screenshots \(index.milliseconds) ms, ratio "
                        + String(format: "%.2f", ratio))
            }
        }
    }
}
