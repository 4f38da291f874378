import CFileOpenProbe
import Foundation
import StoryBridge
import StoryBridgeServer
import StoryBridgeTesting
import Testing

@Suite("File I/O off the cooperative pool", .serialized)
struct FileIOOffThePoolTests {
    /// When the held slides are let go at the latest, in seconds, if the test has not let them go
    /// first. The test asserts no time: commands that could be answered only once the slides'
    /// threads came back are answered after this release, and then the probe no longer holds the
    /// slides, which the test checks after the answers (however slow a loaded machine is).
    static let releaseAfter = 60
    /// How long a command may take before the test gives up on it: longer than ``releaseAfter``,
    /// so a command stuck behind the held slides is answered after their release and fails the
    /// "still held" check instead of a timer.
    static let commandTimeout = Duration.seconds(releaseAfter + 30)

    /// Lets the held opens go after ``releaseAfter`` seconds, from a thread of its own (not a
    /// cooperative one: it must run even if they all block), unless ``release()`` came first.
    final class Releaser: Sendable {
        private let letGo = DispatchSemaphore(value: 0)

        init() {
            Thread { [letGo] in
                _ = letGo.wait(timeout: .now() + .seconds(FileIOOffThePoolTests.releaseAfter))
                file_open_probe_release()
            }.start()
        }

        func release() {
            file_open_probe_release()
            letGo.signal()
        }
    }

    @Test(
        "while loads of slides whose files do not open hold as many threads as the cooperative pool has, memory commands answer promptly; the slides are served once the files open"
    )
    func heldSlideReadsLeaveCommandsAlone() async throws {
        let marker = "held-\(UUID().uuidString)"
        let folder = try makePresentationFolder([
            "index.html": "<!DOCTYPE html><html><head><title>Start</title></head><body>start</body></html>"
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        // A read on a cooperative thread would park one of them per slide: with as many slides
        // as the pool has threads, none would be left for the commands. (BlockingIO's own pool
        // has more threads: the other tests' slides go on meanwhile.)
        #expect(BlockingIO.threadCount > ProcessInfo.processInfo.activeProcessorCount)
        let slides = (0..<ProcessInfo.processInfo.activeProcessorCount).map { "\(marker)-\($0).html" }
        for slide in slides {
            try "<!DOCTYPE html><html><head><title>Held</title></head><body>\(slide) opened</body></html>"
                .write(to: folder.appendingPathComponent(slide), atomically: false, encoding: .utf8)
        }
        let host = try await TestHost.start(presentationFolders: [folder])
        let viewer = try await host.connectViewer(slide: "index.html")
        #expect(await viewer.nextEvent(named: "hello") != nil)
        file_open_probe_hold(marker)
        let releaser = Releaser()
        let started = ContinuousClock.now
        let loads = slides.map { slide in Task { try await httpGet(host.slideURL(slide: slide)) } }
        do {
            let held = ContinuousClock.now
            while file_open_probe_waiting() < slides.count, ContinuousClock.now - held < .seconds(60) {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(Int(file_open_probe_waiting()) == slides.count, "every load waits in the open of its slide")
            for command in ["getCurrentSlideName", "hideMapBtn", "getCurrentSlideName"] {
                let answer = try await viewer.request(command, timeout: Self.commandTimeout)
                #expect(answer.status == .success, "\(command): \(answer)")
            }
            // The order of events, not a clock: the answers came while every slide's open was
            // still held (a command that needed a held thread would come after the release).
            #expect(
                file_open_probe_waiting() == slides.count,
                "the commands were answered while the slides were still held, after \(ContinuousClock.now - started)")
            releaser.release()
            for (slide, load) in zip(slides, loads) {
                let response = try await load.value
                #expect(response.status == 200)
                let body = String(decoding: response.body, as: UTF8.self)
                #expect(body.contains("\(slide) opened") && body.contains("data-storybridge"), "the slide, the client script injected")
            }
        } catch {
            releaser.release()
            await viewer.close()
            await host.stop()
            throw error
        }
        await viewer.close()
        await host.stop()
    }
}
