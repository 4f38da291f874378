import Foundation
import StoryBridge

/// Takes one screenshot per slide of a presentation: serves it from a host in this process, opens
/// each slide in a headless Chromium tab of a fixed size, waits until the slide is settled (see
/// ``SettleScript``) and writes a PNG per slide plus `index.json` and `index.html`.
public struct SlideShooter: Sendable {
    /// How slides are rendered and how long they may take to settle.
    public struct Options: Sendable {
        public var size: ViewportSize
        /// How long to keep ending animations that start as others end (each is ended at once).
        public var animationLimit: Duration
        /// A slide whose load event or bridge answers take longer is taken anyway (the index says why).
        public var settleTimeout: Duration

        public init(
            size: ViewportSize = .standard, animationLimit: Duration = .seconds(2), settleTimeout: Duration = .seconds(10)
        ) {
            self.size = size
            self.animationLimit = animationLimit
            self.settleTimeout = settleTimeout
        }
    }

    /// Called after each slide: how many are done, how many in all, and the slide just taken.
    public typealias Progress = @Sendable (_ done: Int, _ total: Int, _ slide: String) -> Void

    /// Why a run could not finish.
    public enum ShotsError: Error, CustomStringConvertible {
        case noSlides(presentation: String)
        case outputFolder(path: String, reason: String)
        case slideFailed(slide: String, reason: String)

        public var description: String {
            switch self {
            case .noSlides(let presentation): return "\(presentation) has no slides (no root .html files)"
            case .outputFolder(let path, let reason): return "cannot write screenshots to '\(path)': \(reason)"
            case .slideFailed(let slide, let reason): return "slide \(slide) could not be taken: \(reason)"
            }
        }
    }

    public let browser: HeadlessChromium
    public let options: Options

    public init(browser: HeadlessChromium, options: Options = Options()) {
        self.browser = browser
        self.options = options
    }

    /// The slides in the order they are taken: the map's tree from `index.html`, depth first in
    /// link order, then the slides no link reaches, by name.
    public static func order(of presentation: Presentation) -> [Slide] {
        let map = presentation.map
        var ordered: [String] = []
        var seen: Set<String> = []
        func walk(_ name: String) {
            guard presentation.hasSlide(name), seen.insert(name).inserted else { return }
            ordered.append(name)
            for child in map.children[name] ?? [] { walk(child) }
        }
        walk(Presentation.startSlide)
        for slide in presentation.slides where !seen.contains(slide.name) { ordered.append(slide.name) }
        return ordered.compactMap { presentation.slide(named: $0) }
    }

    /// The PNG's file name of `slide`.
    public static func imageName(of slide: String) -> String {
        (slide.hasSuffix(".html") ? String(slide.dropLast(5)) : slide) + ".png"
    }

    /// Screenshots every slide of the presentation in `folder` into `output` (created if missing).
    public func shoot(
        presentationIn folder: URL, catalog: PresentationFolder.Catalog, to output: URL, progress: Progress? = nil
    ) async throws -> ShotsIndex {
        let presentation = try PresentationFolder.load(folder, catalog: catalog)
        let slides = Self.order(of: presentation)
        guard !slides.isEmpty else { throw ShotsError.noSlides(presentation: folder.path) }
        do {
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        } catch {
            throw ShotsError.outputFolder(path: output.path, reason: "\(SystemProblem(error))")
        }
        let host = try await TestHost.start(presentationFolders: [folder], catalogs: [catalog])
        let tab: SlideTab
        do {
            tab = try await SlideTab.open(in: browser, size: options.size)
        } catch {
            await host.stop()
            throw error
        }
        let started = ContinuousClock.now
        var entries: [ShotsIndex.Entry] = []
        do {
            for (number, slide) in slides.enumerated() {
                let slideStarted = ContinuousClock.now
                let url = host.slideURL(presentationId: presentation.id, slide: slide.name)
                let settled: SlideTab.Settled
                let png: Data
                do {
                    settled = try await tab.settle(url, animationLimit: options.animationLimit, timeout: options.settleTimeout)
                    png = try await tab.screenshot()
                } catch {
                    throw ShotsError.slideFailed(slide: slide.name, reason: "\(error)")
                }
                let image = Self.imageName(of: slide.name)
                do {
                    try png.write(to: output.appendingPathComponent(image), options: .atomic)
                } catch {
                    throw ShotsError.outputFolder(path: output.path, reason: "\(SystemProblem(error))")
                }
                entries.append(
                    ShotsIndex.Entry(
                        slide: slide.name, title: slide.metadata.title, image: image,
                        milliseconds: Self.milliseconds(ContinuousClock.now - slideStarted),
                        unansweredCommands: settled.unanswered, animationsEnded: settled.animationsEnded))
                progress?(number + 1, slides.count, slide.name)
            }
        } catch {
            await tab.close()
            await host.stop()
            throw error
        }
        await tab.close()
        await host.stop()
        let index = ShotsIndex(
            presentationId: presentation.id, presentationName: presentation.name, revision: presentation.revision,
            size: options.size, slides: entries, milliseconds: Self.milliseconds(ContinuousClock.now - started))
        do {
            try index.write(to: output)
        } catch {
            throw ShotsError.outputFolder(path: output.path, reason: "\(SystemProblem(error))")
        }
        return index
    }

    /// Loads every slide in the same kind of tab and waits only for its load event, taking no
    /// screenshot: the baseline `shots --timing` compares a run with. Returns the milliseconds taken.
    public func loadOnly(presentationIn folder: URL, catalog: PresentationFolder.Catalog) async throws -> Int {
        let presentation = try PresentationFolder.load(folder, catalog: catalog)
        let host = try await TestHost.start(presentationFolders: [folder], catalogs: [catalog])
        let tab: SlideTab
        do {
            tab = try await SlideTab.open(in: browser, size: options.size)
        } catch {
            await host.stop()
            throw error
        }
        let started = ContinuousClock.now
        do {
            for slide in Self.order(of: presentation) {
                try await tab.load(host.slideURL(presentationId: presentation.id, slide: slide.name))
            }
        } catch {
            await tab.close()
            await host.stop()
            throw error
        }
        let elapsed = Self.milliseconds(ContinuousClock.now - started)
        await tab.close()
        await host.stop()
        return elapsed
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
