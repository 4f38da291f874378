import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import StoryBridge
import StoryBridgeScripts

/// `storybridge kiosk`'s end of serve's control socket (docs/design/FLEET.md §9.3): finds serve
/// by `<data-dir>/run/serve.json`, waiting and trying again every second while the file is
/// missing or its process is gone; attaches; hands `start` to the browser, answers `screenshot`,
/// carries the idle handshake (`idle` out, `idleDone` in, through ``KioskIdleReporter``) and
/// sends its counters every 10 s. A socket that ends is opened again a second later.
struct KioskControlClient: Sendable {
    let directory: DataDirectory
    let attach: KioskControlMessage.Attach
    let browser: KioskBrowser
    let idleReporter: KioskIdleReporter
    let logger: Logger

    /// How often the kiosk sends its counters.
    static let statusInterval = Duration.seconds(10)
    /// The largest frame serve sends.
    static let maxMessageSize = 1 << 16

    /// Keeps a control socket to serve until the calling task is cancelled.
    func run() async {
        var waiting = false
        while !Task.isCancelled {
            guard let file = KioskRunFile.read(in: directory), Self.isRunning(file.pid) else {
                if !waiting {
                    logger.info("waiting for serve: no run/serve.json of a running serve in \(directory.root.path)")
                    waiting = true
                }
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            waiting = false
            let ending = await session(with: file)
            if Task.isCancelled { break }
            logger.warning("kiosk control socket \(ending); connecting again in 1 s")
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Whether process `pid` exists (another user's counts).
    static func isRunning(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
    }

    /// The control socket's URL for serve's base URL `base` (`http://127.0.0.1:8080`).
    static func socketURL(base: String) -> String {
        var url = base
        if url.hasPrefix("https://") {
            url = "wss://" + url.dropFirst("https://".count)
        } else if url.hasPrefix("http://") {
            url = "ws://" + url.dropFirst("http://".count)
        }
        while url.hasSuffix("/") { url.removeLast() }
        return url + "/__storybridge/kiosk"
    }

    /// One socket, from the attach to its end; says how it ended.
    private func session(with file: KioskRunFile) async -> String {
        var configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 24)
        configuration.additionalHeaders = [.authorization: "Bearer \(file.controlToken)"]
        do {
            let close = try await WebSocketClient.connect(url: Self.socketURL(base: file.url), configuration: configuration, logger: logger)
            {
                inbound, outbound, _ in
                try await outbound.write(.text(Self.text(.attach(attach))))
                logger.info("kiosk attached to serve", metadata: ["serve": "\(file.url)", "pid": "\(file.pid)"])
                idleReporter.connected { message in try await outbound.write(.text(Self.text(message))) }
                defer { idleReporter.disconnected() }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        while !Task.isCancelled {
                            let status = KioskControlMessage.Status(
                                browserRestarts: await browser.restarts, idleResets: await browser.idleResets,
                                lastInputSecondsAgo: await browser.lastInputSecondsAgo)
                            try await outbound.write(.text(Self.text(.status(status))))
                            try await Task.sleep(for: Self.statusInterval)
                        }
                    }
                    for try await frame in inbound.messages(maxSize: Self.maxMessageSize) {
                        guard case .text(let text) = frame else { continue }
                        let message: KioskControlMessage
                        do {
                            message = try KioskControlMessage.decode(Data(text.utf8))
                        } catch {
                            logger.warning("kiosk control: \(error)")
                            continue
                        }
                        switch message {
                        case .start(let url): await browser.open(url)
                        case .screenshot(let id): try await answerScreenshot(id, on: outbound)
                        case .idleDone(let viewer): idleReporter.idleDone(viewer: viewer)
                        default: continue
                        }
                    }
                    group.cancelAll()
                }
            }
            guard let close else { return "closed" }
            return "closed by serve (\(close.closeCode)\(close.reason.map { ": \($0)" } ?? ""))"
        } catch {
            return "failed: \(error)"
        }
    }

    /// Takes the screenshot `id` asks for and sends `screenshotResult`, then the PNG as a binary
    /// frame; or the result with the error.
    private func answerScreenshot(_ id: String, on outbound: WebSocketOutboundWriter) async throws {
        do {
            let shot = try await browser.screenshot()
            let takenAt = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
            let result = KioskControlMessage.ScreenshotResult(id: id, width: shot.width, height: shot.height, takenAt: takenAt)
            try await outbound.write(.text(Self.text(.screenshotResult(result))))
            try await outbound.write(.binary(ByteBuffer(bytes: shot.png)))
        } catch let failure as KioskBrowser.ScreenshotFailure {
            logger.warning("kiosk screenshot failed: \(failure)")
            try await outbound.write(.text(Self.text(.screenshotResult(.init(id: id, error: failure.description)))))
        }
    }

    private static func text(_ message: KioskControlMessage) -> String {
        String(decoding: message.encoded(), as: UTF8.self)
    }
}
