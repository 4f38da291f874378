import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import StoryBridge
import StoryBridgeScripts
import StoryBridgeServer
import StoryBridgeTesting
import Synchronization
import Testing

/// The pieces of serve's side of `storybridge kiosk` (docs/design/FLEET.md §9): the control
/// messages, the state of the attached kiosk, and the run file on a real data folder.
@Suite("Kiosk control: messages, state, run file")
struct KioskControlTests {
    static let attach = KioskControlMessage.Attach(pid: 4242, mode: "headless", idleResetSeconds: 120, browser: "/usr/bin/chromium")

    @Test("messages read back as written, keys sorted; an unknown type is kept as unknown; a malformed one is refused with the reason")
    func messages() throws {
        let status = KioskControlMessage.status(.init(browserRestarts: 2, idleResets: 5, lastInputSecondsAgo: nil))
        let messages: [KioskControlMessage] = [
            .attach(Self.attach), status, .start(url: "http://127.0.0.1:8080/p/12/index.html"), .screenshot(id: "s1"),
            .screenshotResult(.init(id: "s1", width: 1280, height: 720, takenAt: "2026-11-29T18:00:00.000Z")),
            .screenshotResult(.init(id: "s2", error: "no page")), .idle(viewer: "v-1"), .idleDone(viewer: "v-1"),
        ]
        for message in messages {
            let data = message.encoded()
            #expect(try KioskControlMessage.decode(data) == message, "\(String(decoding: data, as: UTF8.self))")
        }
        #expect(
            String(decoding: KioskControlMessage.start(url: "http://127.0.0.1:1/").encoded(), as: UTF8.self)
                == #"{"type":"start","url":"http://127.0.0.1:1/"}"#)
        #expect(
            String(decoding: KioskControlMessage.attach(Self.attach).encoded(), as: UTF8.self)
                == #"{"browser":"/usr/bin/chromium","idleResetSeconds":120,"mode":"headless","pid":4242,"type":"attach"}"#)
        #expect(try KioskControlMessage.decode(Data(#"{"type":"reboot","now":true}"#.utf8)) == .unknown("reboot"))
        #expect(throws: KioskControlMessage.DecodingFailure(reason: "no \"type\" of text in a JSON object")) {
            try KioskControlMessage.decode(Data("[1]".utf8))
        }
        #expect(throws: KioskControlMessage.DecodingFailure(reason: "its attach members are missing or of the wrong type")) {
            try KioskControlMessage.decode(Data(#"{"type":"attach","pid":"x"}"#.utf8))
        }
    }

    @Test(
        "one kiosk at a time: an attach is told the start URL and replaces the one before (4409); status and closes of others are ignored")
    func state() {
        var state = KioskControlState(startURL: "http://127.0.0.1:8080/")
        #expect(state.attach(Self.attach, on: 1) == [.send(connection: 1, .start(url: "http://127.0.0.1:8080/"))])
        state.status(.init(browserRestarts: 1, idleResets: 0, lastInputSecondsAgo: 3), on: 1)
        #expect(state.attached?.status?.browserRestarts == 1)
        // A second kiosk replaces the first.
        #expect(
            state.attach(Self.attach, on: 2) == [
                .close(connection: 1, code: 4409, reason: "another storybridge kiosk attached"),
                .send(connection: 2, .start(url: "http://127.0.0.1:8080/")),
            ])
        #expect(state.attached?.status == nil)
        // The replaced one's late status and close change nothing.
        state.status(.init(browserRestarts: 9, idleResets: 9, lastInputSecondsAgo: nil), on: 1)
        state.closed(1)
        #expect(state.attached?.connection == 2 && state.attached?.status == nil)
        // The schedule moves on: the attached kiosk opens the new URL, once.
        #expect(
            state.startURLChanged(to: "http://127.0.0.1:8080/p/13/") == [.send(connection: 2, .start(url: "http://127.0.0.1:8080/p/13/"))])
        #expect(state.startURLChanged(to: "http://127.0.0.1:8080/p/13/").isEmpty)
        state.closed(2)
        #expect(state.attached == nil)
        #expect(state.startURLChanged(to: "http://127.0.0.1:8080/").isEmpty)
    }

    @Test("the attached kiosk's idle is a report with its idle time, answered by idleDone on its connection; another's is ignored")
    func idleState() {
        var state = KioskControlState(startURL: "http://127.0.0.1:8080/")
        #expect(state.idle(viewer: "v1", on: 1) == nil)
        _ = state.attach(Self.attach, on: 1)
        let report = state.idle(viewer: "v1", on: 1)
        #expect(report == .init(connection: 1, viewer: "v1", idleSeconds: 120))
        #expect(state.idle(viewer: "v1", on: 2) == nil)
        #expect(report.map { state.idleHandled($0) } == [.send(connection: 1, .idleDone(viewer: "v1"))])
    }

    @Test(
        "admission: loopback only; every Origin field must be a ws(s) URL (a page's is http(s) or null); the bearer token must match")
    func refusals() {
        let control = KioskControl(token: "t0k3n", startURL: "http://127.0.0.1/")
        func request(_ fields: [(HTTPField.Name, String)]) -> HTTPRequest {
            var request = HTTPRequest(method: .get, scheme: nil, authority: "127.0.0.1", path: "/__storybridge/kiosk")
            for (name, value) in fields { request.headerFields.append(HTTPField(name: name, value: value)) }
            return request
        }
        let bearer = (HTTPField.Name.authorization, "Bearer t0k3n")
        #expect(control.refusal(of: request([bearer]), loopback: true) == nil)
        #expect(control.refusal(of: request([bearer, (.origin, "ws://127.0.0.1")]), loopback: true) == nil)
        #expect(control.refusal(of: request([bearer]), loopback: false) == .notLoopback)
        #expect(control.refusal(of: request([bearer, (.origin, "null")]), loopback: true) == .origin("null"))
        #expect(control.refusal(of: request([bearer, (.origin, "https://example.org")]), loopback: true) == .origin("https://example.org"))
        // A page's Origin behind a library's is still seen.
        #expect(
            control.refusal(of: request([bearer, (.origin, "ws://127.0.0.1"), (.origin, "http://127.0.0.1:8080")]), loopback: true)
                == .origin("http://127.0.0.1:8080"))
        #expect(control.refusal(of: request([]), loopback: true) == .token)
        #expect(control.refusal(of: request([(.authorization, "Bearer t0k3n-")]), loopback: true) == .token)
        #expect(control.refusal(of: request([(.authorization, "t0k3n")]), loopback: true) == .token)
    }

    @Test("the run file is written 0600 in run/, read back, replaced whole, and removed only by its own process")
    func runFile() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sb-run-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = DataDirectory(root)
        let token = KioskRunFile.newToken()
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit) && token != KioskRunFile.newToken())
        let mine = KioskRunFile(pid: getpid(), url: "http://127.0.0.1:8080", controlToken: token)
        try mine.write(in: directory)
        let path = KioskRunFile.file(in: directory).path
        #expect(path.hasSuffix("/run/serve.json"))
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(KioskRunFile.read(in: directory) == mine)
        // Another serve's file is left alone by this process's removal.
        let theirs = KioskRunFile(pid: mine.pid + 1, url: "http://127.0.0.1:9090", controlToken: KioskRunFile.newToken())
        try theirs.write(in: directory)
        #expect(KioskRunFile.read(in: directory) == theirs)
        KioskRunFile.remove(in: directory)
        #expect(KioskRunFile.read(in: directory) == theirs)
        try mine.write(in: directory)
        KioskRunFile.remove(in: directory)
        #expect(!FileManager.default.fileExists(atPath: path))
        // No temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("run").path).isEmpty)
    }
}

/// The control socket on a real server on loopback (docs/design/FLEET.md §9.3).
@Suite("Kiosk control socket")
struct KioskControlSocketTests {
    private static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/presentations/demo")

    /// Runs `body` with a host serving the demo whose control socket takes `token`.
    private func withServer(_ body: (RunningServer, KioskControl) async throws -> Void) async throws {
        try await withServer { running, control, _ in try await body(running, control) }
    }

    /// Runs `body` with a host serving the demo (reading `clock`) whose control socket takes `token`.
    private func withServer(
        clock: any HostClock = SystemHostClock(), _ body: (RunningServer, KioskControl, StoryBridgeHost) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-kiosk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let host = try quietHost(serving: Self.demo, in: folder, clock: clock)
        var configuration = ServerConfiguration(port: 0)
        let control = KioskControl(startURL: "http://127.0.0.1/p/1/index.html")
        configuration.kioskControl = control
        let running = try await StoryBridgeServer(host: host, configuration: configuration).start()
        do {
            try await body(running, control, host)
        } catch {
            await running.stop()
            throw error
        }
        await running.stop()
    }

    /// Connects to the control socket with `headers`, sends `send`, and returns what the server sent
    /// (text messages) and its close code, once the socket has closed or `until` says enough.
    private func session(
        port: Int, headers: HTTPFields, send: [KioskControlMessage] = [],
        until enough: @escaping @Sendable ([KioskControlMessage]) -> Bool = { _ in false }
    ) async throws -> (messages: [KioskControlMessage], close: WebSocketCloseFrame?) {
        var configuration = WebSocketClientConfiguration()
        configuration.additionalHeaders = headers
        let received = Mutex<[KioskControlMessage]>([])
        var logger = Logger(label: "test.kiosk")
        logger.logLevel = .critical
        let close = try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)/__storybridge/kiosk", configuration: configuration, logger: logger
        ) { inbound, outbound, _ in
            for message in send { try await outbound.write(.text(String(decoding: message.encoded(), as: UTF8.self))) }
            for try await frame in inbound.messages(maxSize: 1 << 16) {
                guard case .text(let text) = frame, let message = try? KioskControlMessage.decode(Data(text.utf8)) else { continue }
                let all = received.withLock { list in
                    list.append(message)
                    return list
                }
                if enough(all) { return }
            }
        }
        return (received.withLock { $0 }, close)
    }

    @Test("a kiosk with the token is told its start URL; no token, a wrong one or an Origin is refused with 4403 and the reason")
    func admission() async throws {
        try await withServer { running, control in
            let bearer: HTTPFields = [.authorization: "Bearer \(control.token)"]
            let good = try await session(port: running.port, headers: bearer, send: [.attach(KioskControlTests.attach)]) { !$0.isEmpty }
            #expect(good.messages == [.start(url: "http://127.0.0.1/p/1/index.html")], "\(String(describing: good.close))")
            for (headers, reason) in [
                (HTTPFields(), "missing or wrong control token"),
                ([.authorization: "Bearer \(KioskRunFile.newToken())"], "wrong control token"),
                ([.authorization: "Bearer \(control.token)", .origin: "http://127.0.0.1:\(running.port)"], "not for web pages"),
            ] as [(HTTPFields, String)] {
                // Stops at the first message too, so that a socket wrongly admitted fails here
                // instead of waiting for a close that never comes.
                let refused = try await session(port: running.port, headers: headers, send: [.attach(KioskControlTests.attach)]) {
                    !$0.isEmpty
                }
                #expect(refused.messages.isEmpty)
                #expect(refused.close?.closeCode == .unknown(4403), "\(String(describing: refused.close))")
                #expect(refused.close?.reason?.contains(reason) == true, "\(String(describing: refused.close))")
            }
        }
    }

    @Test(
        "a second kiosk replaces the first, which is closed with 4409; its status is what the host knows; a schedule change is sent to it")
    func replaced() async throws {
        try await withServer { running, control in
            let bearer: HTTPFields = [.authorization: "Bearer \(control.token)"]
            let first = Task {
                try await session(port: running.port, headers: bearer, send: [.attach(KioskControlTests.attach)])
            }
            // The first kiosk is attached before the second comes.
            let deadline = ContinuousClock.now + .seconds(10)
            while control.attached == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            let firstConnection = try #require(control.attached?.connection)
            let status = KioskControlMessage.Status(browserRestarts: 3, idleResets: 1, lastInputSecondsAgo: 12)
            let second = Task {
                try await session(port: running.port, headers: bearer, send: [.attach(KioskControlTests.attach), .status(status)]) {
                    $0.count == 2
                }
            }
            let replaced = try await first.value
            #expect(replaced.close?.closeCode == .unknown(4409), "\(String(describing: replaced.close))")
            while control.attached?.status != status, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(control.attached?.connection != firstConnection && control.attached?.status == status)
            control.startURLChanged(to: "http://127.0.0.1/p/2/index.html")
            let kept = try await second.value
            #expect(
                kept.messages == [.start(url: "http://127.0.0.1/p/1/index.html"), .start(url: "http://127.0.0.1/p/2/index.html")])
        }
    }

    @Test(
        "idle {viewer} ends that viewer's session at once: saved, endedBy idle, its slide recorded up to the kiosk's last input, queued; then idleDone"
    )
    func idleEndsSession() async throws {
        let clock = ManualHostClock()
        try await withServer(clock: clock) { running, control, host in
            let viewer = try await ViewerClient.connect(
                baseURL: running.baseURL, token: running.token, presentationId: 1, slide: "index.html")
            defer { Task { await viewer.close() } }
            let deadline = ContinuousClock.now + .seconds(10)
            var sessionId: String?
            while sessionId == nil, ContinuousClock.now < deadline {
                sessionId = await host.viewers.existingViewer(id: viewer.viewerId)?.state.sessionId
                if sessionId == nil { try await Task.sleep(for: .milliseconds(10)) }
            }
            let session = try #require(sessionId)
            // The slide was shown 200 s; the kiosk's idle time is 120 s: 80 s of it were watched.
            clock.advance(by: .seconds(200))
            let bearer: HTTPFields = [.authorization: "Bearer \(control.token)"]
            let kiosk = try await self.session(
                port: running.port, headers: bearer, send: [.attach(KioskControlTests.attach), .idle(viewer: viewer.viewerId)]
            ) { $0.contains(.idleDone(viewer: viewer.viewerId)) }
            #expect(kiosk.messages.last == .idleDone(viewer: viewer.viewerId))
            let record = try #require(try await host.analytics.session(id: session))
            #expect(record.state == .saved && record.endedBy == .idle)
            #expect(record.duration == 80)
            #expect(await host.viewers.existingViewer(id: viewer.viewerId)?.state.sessionId == nil)
            #expect(try await host.analytics.uploadStatus().queued > 0)
            // A viewer the host does not know is answered all the same: the kiosk goes on.
            let unknown = try await self.session(
                port: running.port, headers: bearer, send: [.attach(KioskControlTests.attach), .idle(viewer: "nobody")]
            ) { $0.contains(.idleDone(viewer: "nobody")) }
            #expect(unknown.messages.last == .idleDone(viewer: "nobody"))
        }
    }
}
