import Foundation
import StoryBridge

/// Takes one screenshot per slide of a presentation: serves it from a host in this process, opens
/// each slide in a headless Chromium tab of a fixed size, waits until the slide is settled (see
/// ``SettleScript``) and writes a PNG per slide plus `index.json` and `index.html`.
///
/// Pipelined (the default), two tabs take the slides in turn: while one is captured and its PNG
/// written, the other loads and settles the next slide. Capturing is mostly the browser's work
/// (a new compositor frame, its copy and the PNG encoding), loading is mostly the page's and the
/// host's, so on two or more cores the two overlap. The pictures, files and index order are the
/// ones a single tab gives.
package struct SlideShooter: Sendable {
    /// How slides are rendered and how long they may take to settle.
    package struct Options: Sendable {
        package var size: ViewportSize
        /// How long to keep ending animations that start as others end (each is ended at once).
        package var animationLimit: Duration
        /// A slide whose load event or bridge answers take longer is taken anyway (the index says why).
        package var settleTimeout: Duration
        /// Two tabs in turn, one captured while the other settles the next slide; `false`: one tab
        /// settles and captures each slide in turn.
        package var pipelined: Bool

        package init(
            size: ViewportSize = .standard, animationLimit: Duration = .seconds(2), settleTimeout: Duration = .seconds(10),
            pipelined: Bool = true
        ) {
            self.size = size
            self.animationLimit = animationLimit
            self.settleTimeout = settleTimeout
            self.pipelined = pipelined
        }
    }

    /// Called after each slide: how many are done, how many in all, and the slide just taken.
    package typealias Progress = @Sendable (_ done: Int, _ total: Int, _ slide: String) -> Void

    /// Why a run could not finish.
    enum ShotsError: Error, CustomStringConvertible {
        case noSlides(presentation: String)
        case outputFolder(path: String, reason: String)
        case slideFailed(slide: String, reason: String)

        package var description: String {
            switch self {
            case .noSlides(let presentation): return "\(presentation) has no slides (no root .html files)"
            case .outputFolder(let path, let reason): return "cannot write screenshots to '\(path)': \(reason)"
            case .slideFailed(let slide, let reason): return "slide \(slide) could not be taken: \(reason)"
            }
        }
    }

    package let browser: HeadlessChromium
    package let options: Options

    package init(browser: HeadlessChromium, options: Options = Options()) {
        self.browser = browser
        self.options = options
    }

    /// The slides in the order they are taken: the map's tree from `index.html`, depth first in
    /// link order, then the slides no link reaches, by name.
    package static func order(of presentation: Presentation) -> [Slide] {
        let map = presentation.map
        var ordered: [String] = []
        var seen: Set<String> = []
        func walk(_ name: String) {
            guard presentation.hasSlide(name), seen.insert(name).inserted else { return }
            ordered.append(name)
            for child in map.children[name] ?? [] { walk(child) }
        }
        walk(presentation.entrySlide)
        for slide in presentation.slides where !seen.contains(slide.name) { ordered.append(slide.name) }
        return ordered.compactMap { presentation.slide(named: $0) }
    }

    /// The PNG's file name of `slide`.
    package static func imageName(of slide: String) -> String {
        (slide.hasSuffix(".html") ? String(slide.dropLast(5)) : slide) + ".png"
    }

    /// Screenshots every slide of the presentation in `folder` into `output` (created if missing).
    package func shoot(
        presentationIn folder: URL, catalog: PresentationFolder.Catalog, to output: URL, progress: Progress? = nil
    ) async throws -> ShotsIndex {
        let presentation = try PresentationFolder.load(folder, catalog: catalog)
        let slides = Self.order(of: presentation)
        guard !slides.isEmpty else { throw ShotsError.noSlides(presentation: folder.path) }
        do {
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            // A slide in a folder (a Veeva key message, an OCE sequence) is shot into the same
            // folder under `output`: each such folder made once, before any capture.
            let folders = Set(
                slides.map { Self.imageName(of: $0.name) }.filter { $0.contains("/") }.map {
                    output.appendingPathComponent($0).deletingLastPathComponent().path
                })
            for folder in folders { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        } catch {
            throw ShotsError.outputFolder(path: output.path, reason: "\(SystemProblem(error))")
        }
        let host = try await TestHost.start(presentationFolders: [folder], catalogs: [catalog])
        var tabs: [SlideTab] = []
        do {
            for _ in 0..<(options.pipelined ? 2 : 1) { tabs.append(try await SlideTab.open(in: browser, size: options.size)) }
        } catch {
            for tab in tabs { await tab.close() }
            await host.stop()
            throw error
        }
        let started = ContinuousClock.now
        let entries: [ShotsIndex.Entry]
        do {
            entries = try await take(slides, of: presentation.id, from: host, in: tabs, to: output, progress: progress)
        } catch {
            for tab in tabs { await tab.close() }
            await host.stop()
            throw error
        }
        for tab in tabs { await tab.close() }
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

    /// Takes `slides` in order with `tabs` used in turn: slide N+1 settles in the next tab while
    /// slide N is captured and written (with one tab, one after the other).
    private func take(
        _ slides: [Slide], of presentationId: Int, from host: TestHost, in tabs: [SlideTab], to output: URL,
        progress: Progress?
    ) async throws -> [ShotsIndex.Entry] {
        var entries: [ShotsIndex.Entry] = []
        var slideStarted = ContinuousClock.now
        var settled = try await settle(slides[0], of: presentationId, from: host, in: tabs[0])
        for (number, slide) in slides.enumerated() {
            let tab = tabs[number % tabs.count]
            let following = number + 1 < slides.count ? slides[number + 1] : nil
            let followingTab = tabs[(number + 1) % tabs.count]
            let image = Self.imageName(of: slide.name)
            async let captured = capture(slide, in: tab, to: output.appendingPathComponent(image))
            // With one tab the following slide loads in the tab being captured: it waits for the capture.
            if tabs.count == 1 { _ = try await captured }
            let followingStarted = ContinuousClock.now
            let followingSettled = try await following.asyncMap { try await settle($0, of: presentationId, from: host, in: followingTab) }
            let written = try await captured
            entries.append(
                ShotsIndex.Entry(
                    slide: slide.name, title: slide.metadata.title, image: image,
                    milliseconds: Self.milliseconds(written - slideStarted),
                    unansweredCommands: settled.unanswered, animationsEnded: settled.animationsEnded))
            progress?(number + 1, slides.count, slide.name)
            if let followingSettled {
                settled = followingSettled
                slideStarted = followingStarted
            }
        }
        return entries
    }

    /// Loads `slide` in `tab` and waits until it has settled.
    private func settle(_ slide: Slide, of presentationId: Int, from host: TestHost, in tab: SlideTab) async throws
        -> SlideTab.Settled
    {
        do {
            return try await tab.settle(
                host.slideURL(presentationId: presentationId, slide: slide.name), animationLimit: options.animationLimit,
                timeout: options.settleTimeout)
        } catch {
            throw ShotsError.slideFailed(slide: slide.name, reason: "\(error)")
        }
    }

    /// Captures the settled `slide` shown in `tab` into `file`; returns when the file was written.
    private func capture(_ slide: Slide, in tab: SlideTab, to file: URL) async throws -> ContinuousClock.Instant {
        let png: Data
        do {
            png = try await tab.screenshot()
        } catch {
            throw ShotsError.slideFailed(slide: slide.name, reason: "\(error)")
        }
        do {
            try png.write(to: file, options: .atomic)
        } catch {
            throw ShotsError.outputFolder(path: file.deletingLastPathComponent().path, reason: "\(SystemProblem(error))")
        }
        return ContinuousClock.now
    }

    /// Loads every slide in the same kind of tab and waits only for its load event, taking no
    /// screenshot: the baseline `shots --timing` compares a run with. Returns the milliseconds taken.
    package func loadOnly(presentationIn folder: URL, catalog: PresentationFolder.Catalog) async throws -> Int {
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

extension Optional {
    /// The wrapped value transformed by an async `transform`, or `nil`.
    fileprivate func asyncMap<Result>(_ transform: (Wrapped) async throws -> Result) async rethrows -> Result? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
