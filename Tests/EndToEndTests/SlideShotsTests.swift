import Foundation
import StoryBridge
import StoryBridgeTesting
import Synchronization
import Testing

@Suite("Slide screenshots in headless Chromium", .serialized)
struct SlideShotsTests {
    /// The demo's copy of storyclm.js, for slides that call the bridge.
    static let storyclmScript = try! String(
        contentsOf: demoFolder.appendingPathComponent("js/storyclm.js"), encoding: .utf8)
    /// Blue at the end of a ten-minute animation from red: only the settler's ending of it makes it
    /// blue in time, so every run ends exactly this one animation, however loaded the machine (a
    /// 0.6 s animation sometimes ended by itself first).
    static let animatedSlide = VisualDeck.block(
        "#00f", script: "<style>@keyframes fade{from{background:#f00}to{background:#00f}}#block{animation:fade 600s linear}</style>")
    /// Green once the host has answered getPresentationInfo (white until then); needs
    /// `js/storyclm.js` in the deck.
    static let answeredSlide = VisualDeck.block(
        "#fff",
        script: """
            <script src="js/storyclm.js"></script>
            <script>StoryCLM.Presentation.GetInfo(function () { document.getElementById('block').style.background = '#0a0'; });</script>
            """)

    @Test("every slide is taken in map order once settled: an animation ended, a bridge answer awaited; two runs give the same pixels")
    func settledAndDeterministic() async throws {
        var deck = VisualDeck(slides: [
            "index.html": VisualDeck.block("#333", links: ["animated.html", "answered.html"]),
            "animated.html": Self.animatedSlide,
            "answered.html": Self.answeredSlide,
            // What the two slides above must look like once settled.
            "blue.html": VisualDeck.block("#00f"),
            "green.html": VisualDeck.block("#0a0"),
        ])
        deck.files["js/storyclm.js"] = Self.storyclmScript
        let folder = try deck.write()
        let output = folder.appendingPathComponent("shots")
        let again = folder.appendingPathComponent("shots-again")
        defer { try? FileManager.default.removeItem(at: folder) }
        let shooter = SlideShooter(browser: try await SharedBrowser.shared.get(), options: .init(size: .init(width: 640, height: 480)))
        let progressed = Counter()
        let index = try await shooter.shoot(presentationIn: folder, catalog: .init(id: 7, name: "visual"), to: output) { done, total, _ in
            progressed.record(done: done, total: total)
        }
        #expect(index.slides.map(\.slide) == ["index.html", "animated.html", "answered.html", "blue.html", "green.html"])
        #expect(progressed.seen == [1, 2, 3, 4, 5])
        #expect(index.slides.allSatisfy { $0.unansweredCommands.isEmpty })
        #expect(index.size == ViewportSize(width: 640, height: 480))
        #expect(try ShotsIndex.read(from: output) == index)
        func png(_ base: URL, _ slide: String) throws -> Data {
            try Data(contentsOf: base.appendingPathComponent(SlideShooter.imageName(of: slide)))
        }
        #expect(try png(output, "animated.html") == png(output, "blue.html"), "the animation had not finished")
        #expect(try png(output, "answered.html") == png(output, "green.html"), "the bridge answer had not arrived")
        #expect(try png(output, "blue.html") != png(output, "green.html"))
        // A limit of 0 ends the animation at once, at its end: the same picture.
        let quick = SlideShooter(
            browser: try await SharedBrowser.shared.get(), options: .init(size: .init(width: 640, height: 480), animationLimit: .zero))
        let second = try await quick.shoot(presentationIn: folder, catalog: .init(id: 7, name: "visual"), to: again)
        #expect(second.slides.first { $0.slide == "animated.html" }?.animationsEnded == 1)
        for entry in index.slides {
            #expect(try png(output, entry.slide) == png(again, entry.slide), "\(entry.slide) differs between two runs")
        }
        let gallery = try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(gallery.contains("src=\"answered.png\""))
    }

    @Test("two tabs in turn (the pipeline) give the same files, bytes and index order as one tab")
    func pipelineMatchesOneTab() async throws {
        var slides: [String: String] = [
            "index.html": VisualDeck.block("#333", links: ["animated.html", "answered.html", "s1.html", "s2.html", "s3.html"]),
            "animated.html": Self.animatedSlide,
            "answered.html": Self.answeredSlide,
            "unlinked.html": VisualDeck.block("#abc"),
        ]
        for (number, colour) in ["#c00", "#0c0", "#00c"].enumerated() { slides["s\(number + 1).html"] = VisualDeck.block(colour) }
        var deck = VisualDeck(slides: slides)
        deck.files["js/storyclm.js"] = Self.storyclmScript
        let folder = try deck.write()
        defer { try? FileManager.default.removeItem(at: folder) }
        let browser = try await SharedBrowser.shared.get()
        let size = ViewportSize(width: 640, height: 480)
        let pipelinedOutput = folder.appendingPathComponent("pipelined")
        let oneTabOutput = folder.appendingPathComponent("one-tab")
        let pipelined = try await SlideShooter(browser: browser, options: .init(size: size, pipelined: true))
            .shoot(presentationIn: folder, catalog: .init(id: 8, name: "pipeline"), to: pipelinedOutput)
        let oneTab = try await SlideShooter(browser: browser, options: .init(size: size, pipelined: false))
            .shoot(presentationIn: folder, catalog: .init(id: 8, name: "pipeline"), to: oneTabOutput)
        let order = ["index.html", "animated.html", "answered.html", "s1.html", "s2.html", "s3.html", "unlinked.html"]
        #expect(pipelined.slides.map(\.slide) == order)
        #expect(oneTab.slides.map(\.slide) == order)
        #expect(pipelined.slides.map(\.image) == oneTab.slides.map(\.image))
        #expect(pipelined.slides.map(\.unansweredCommands) == oneTab.slides.map(\.unansweredCommands))
        #expect(pipelined.slides.map(\.animationsEnded) == oneTab.slides.map(\.animationsEnded))
        #expect(oneTab.slides.map(\.animationsEnded) == [0, 1, 0, 0, 0, 0, 0])
        #expect(pipelined.slides.allSatisfy { $0.unansweredCommands.isEmpty })
        let files = { (folder: URL) in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() }
        #expect(try files(pipelinedOutput) == files(oneTabOutput))
        for entry in oneTab.slides {
            let taken = try Data(contentsOf: pipelinedOutput.appendingPathComponent(entry.image))
            #expect(taken == (try Data(contentsOf: oneTabOutput.appendingPathComponent(entry.image))), "\(entry.slide) differs")
        }
        let distinct = Set(try oneTab.slides.map { try Data(contentsOf: oneTabOutput.appendingPathComponent($0.image)) })
        #expect(distinct.count == order.count, "every slide has its own picture, so a slide taken in the wrong tab would show")
    }

    @Test("a deck without slides is refused and leaves no output folder")
    func noSlides() async throws {
        let folder = try VisualDeck(slides: [:], files: ["readme.txt": "nothing"]).write()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out")
        let shooter = SlideShooter(browser: try await SharedBrowser.shared.get())
        await #expect(throws: (any Error).self) {
            _ = try await shooter.shoot(presentationIn: folder, catalog: .init(id: 1), to: output)
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}

/// Progress calls seen by a test.
final class Counter: Sendable {
    private let calls = Mutex<[Int]>([])
    func record(done: Int, total: Int) { calls.withLock { $0.append(done) } }
    var seen: [Int] { calls.withLock { $0 } }
}
