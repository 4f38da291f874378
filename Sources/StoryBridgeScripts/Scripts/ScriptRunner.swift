import Foundation
import StoryBridge
import StoryBridgeServer
import Synchronization

/// Runs test scripts against an in-process host (the default) or a running one (`url`).
package final class ScriptRunner: Sendable {
    /// Where scripts run.
    package enum Target: Sendable {
        /// A host started for each script with the script's presentation and config.
        case inProcess
        /// A host already running at this base URL (e.g. `http://127.0.0.1:8080`).
        case running(url: String)
    }

    package let target: Target
    package let browserBinary: String?
    /// How long a `load` step waits for the page's hello or the end of its connection, whichever
    /// comes first (the host answers either at once; only a hung host takes this long).
    static let pageLoadTimeout = Duration.seconds(30)
    private let browser = Mutex<HeadlessChromium?>(nil)

    package init(target: Target = .inProcess, browserBinary: String? = nil) {
        self.target = target
        self.browserBinary = browserBinary
    }

    /// Ends the browser, if one was started.
    package func close() async {
        await browser.withLock { $0 }?.close()
    }

    /// Runs every test of a script, adding the results to `report`.
    package func run(_ script: TestScript, into report: inout ScriptReport) async {
        let environment: Environment
        do {
            environment = try await Environment.make(for: script, target: target)
        } catch {
            report.results.append(
                .init(
                    script: script.name, file: script.file, name: "(setting up)", steps: 0, seconds: 0,
                    failure: (0, "start", SystemProblem(error).description)))
            return
        }
        for test in script.tests {
            report.results.append(await run(test, script: script, environment: environment))
        }
        await environment.stop()
    }

    struct StepFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Everything one test works with.
    final class Session: @unchecked Sendable {
        // Used by one test at a time, from one task.
        var viewer: ViewerClient
        var page: BrowserPage?
        var lastSessionId: String?
        /// The slide the scripted viewer is on (the test's, then each `load`'s), named in failures.
        var slide: String
        /// The slide the test opened on.
        let startSlide: String
        init(viewer: ViewerClient, slide: String) {
            self.viewer = viewer
            self.slide = slide
            startSlide = slide
        }
    }

    private func run(_ test: TestScript.Test, script: TestScript, environment: Environment) async -> ScriptReport.TestResult {
        let started = ContinuousClock.now
        var result = ScriptReport.TestResult(
            script: script.name, file: script.file, name: test.name, steps: test.steps.count, seconds: 0, failure: nil)
        let viewerId = "script-\(UUID().uuidString.prefix(8))"
        do {
            let slide: String
            if let named = test.slide {
                slide = named
            } else {
                slide = try await environment.entrySlide(presentationId: test.presentationId)
            }
            let session = Session(
                viewer: try await environment.connect(presentationId: test.presentationId, slide: slide, viewerId: viewerId),
                slide: slide)
            _ = await session.viewer.nextEvent(named: "hello", timeout: .seconds(5))
            for (index, step) in test.steps.enumerated() {
                do {
                    try await perform(step, session: session, environment: environment, test: test)
                    if let id = await environment.sessionId(of: viewerId) { session.lastSessionId = id }
                } catch {
                    result.failure = (index + 1, step.label, "on \(session.slide): " + SystemProblem(error).description)
                    break
                }
            }
            await session.viewer.close()
            await session.page?.close()
        } catch {
            result.failure = (0, "connect", SystemProblem(error).description)
        }
        let elapsed = ContinuousClock.now - started
        result.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return result
    }

    private func perform(_ step: TestScript.Step, session: Session, environment: Environment, test: TestScript.Test) async throws {
        switch step {
        case .send(let command, let data, let expect, let noAnswer, let timeout):
            if noAnswer {
                session.viewer.send(BridgeRequest(command: command, data: data))
                return
            }
            let guid = session.viewer.makeGUID()
            session.viewer.send(BridgeRequest(command: command, data: data, guid: guid))
            guard let answer = await session.viewer.answer(to: guid, timeout: .milliseconds(Int64(timeout * 1000))) else {
                throw StepFailure(description: "no answer to '\(command)' within \(timeout) s")
            }
            guard let expect else { return }
            var problems: [String] = []
            if let status = expect.status, status != answer.status.rawValue {
                problems.append("status: expected \(status), got \(answer.status.rawValue)")
            }
            if let code = expect.code, code != answer.errorCode { problems.append("code: expected \(code), got \(answer.errorCode)") }
            if let problem = expect.message.mismatch(.string(answer.errorMessage), label: "message") { problems.append(problem) }
            if let problem = expect.data.mismatch(answer.data, label: "data") { problems.append(problem) }
            if !problems.isEmpty {
                throw StepFailure(
                    description: problems.joined(separator: "\n") + "\nanswer: " + answer.json.jsonString())
            }
        case .expectEvent(let name, let data, let timeout):
            let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
            var seen: [String] = []
            while ContinuousClock.now < deadline {
                guard let event = await session.viewer.events.next(timeout: deadline - ContinuousClock.now) else { break }
                seen.append("\(event.name) \(event.data.jsonString())")
                if event.name == name, data.mismatch(event.data, label: "data") == nil { return }
            }
            throw StepFailure(
                description:
                    "no '\(name)' event\(data.isEmpty ? "" : " matching \(data.subset?.jsonString() ?? "")") within \(timeout) s; events seen: \(seen.isEmpty ? "none" : seen.joined(separator: "; "))"
            )
        case .load(let slide, let presentationId):
            session.slide = slide
            let id = session.viewer.viewerId
            await session.viewer.close()
            session.viewer = try await environment.connect(
                presentationId: presentationId ?? test.presentationId, slide: slide, viewerId: id)
            // The page's first event decides the step: its hello, or the end of its connection. A
            // page the host refuses (a slide the presentation does not have) is closed at once,
            // with the reason in its close frame; a page closed with no hello and no close frame
            // fails here, naming that, instead of at a later step that waits for an answer. The
            // wait ends at whichever comes first (the event stream ends with the connection, after
            // its close frame is kept), so a loaded machine only makes it longer, never different.
            if await session.viewer.nextEvent(named: "hello", timeout: Self.pageLoadTimeout) == nil {
                if let refusal = session.viewer.connection.serverCloseFrame {
                    throw StepFailure(
                        description: "the host refused the page of \(slide): \(refusal.reason ?? "no reason given")")
                }
                if session.viewer.connection.hasEnded {
                    throw StepFailure(description: "the connection of \(slide) ended with no hello and no close frame")
                }
                throw StepFailure(
                    description: "the page of \(slide) got no hello within \(Self.pageLoadTimeout) and its connection is still open")
            }
        case .wait(let seconds):
            try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
        case .expectRecord(let expected):
            try await environment.checkRecords(expected, sessionId: session.lastSessionId)
        case .browserOpen(let slide):
            let page = try await openPage(session)
            try await page.navigate(to: environment.slideURL(presentationId: test.presentationId, slide: slide ?? session.startSlide))
            try await page.waitFor(
                "window.__storybridge && window.__storybridge.state.connected && document.readyState === 'complete'")
        case .click(let selector):
            try await requirePage(session).click(selector)
        case .type(let selector, let text):
            try await requirePage(session).type(selector, text)
        case .eval(let script, let expect):
            let value = try await requirePage(session).evaluate(script)
            if let problem = expect.mismatch(value, label: "value") { throw StepFailure(description: problem) }
        case .waitFor(let script, let timeout):
            try await requirePage(session).waitFor(script, timeout: .milliseconds(Int64(timeout * 1000)))
        case .text(let selector, let expect, let timeout):
            let page = try requirePage(session)
            let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
            var last = JSONValue.null
            while ContinuousClock.now < deadline {
                last = (try await page.text(selector)).map(JSONValue.string) ?? .null
                if last != .null, expect.mismatch(last, label: "text") == nil { return }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw StepFailure(
                description: expect.mismatch(last, label: "text of \(selector)") ?? "no element matches \(selector)")
        case .waitForCommand(let command, let timeout):
            try await environment.waitForCommand(command, timeout: timeout)
        case .setContext(let change):
            let steps = StoryContextSteps(baseURL: environment.baseURL, token: environment.token)
            let presentation = change.presentationId ?? test.presentationId
            if let value = change.value {
                try await steps.set(
                    presentation: presentation, keyPath: change.keyPath, value: value, type: change.type, refused: change.refused)
            } else {
                try await steps.delete(presentation: presentation, keyPath: change.keyPath, refused: change.refused)
            }
        case .expectContext(let expected):
            try await StoryContextSteps(baseURL: environment.baseURL, token: environment.token).expect(
                presentation: expected.presentationId ?? test.presentationId, keyPath: expected.keyPath, expect: expected.expect,
                type: expected.type, absent: expected.absent, timeout: expected.timeout)
        }
    }

    private func openPage(_ session: Session) async throws -> BrowserPage {
        if let page = session.page { return page }
        let existing = browser.withLock { $0 }
        let chromium: HeadlessChromium
        if let existing {
            chromium = existing
        } else {
            chromium = try await HeadlessChromium.launch(binary: browserBinary)
            browser.withLock { $0 = chromium }
        }
        let page = try await chromium.newPage()
        session.page = page
        return page
    }

    private func requirePage(_ session: Session) throws -> BrowserPage {
        guard let page = session.page else {
            throw StepFailure(description: "no browser page is open: add a step {\"browser\": \"open\"} first")
        }
        return page
    }
}
