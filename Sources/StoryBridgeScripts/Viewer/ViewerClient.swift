import Foundation
import StoryBridge
import Synchronization

/// A scripted page: connects to a running host's bridge endpoint as one viewer on one slide,
/// sends commands and reads answers and host events. Use it to test content logic or custom
/// modules without a browser.
///
/// ```swift
/// let viewer = try await ViewerClient.connect(baseURL: server.baseURL, token: server.token,
///                                             presentationId: 1, slide: "index.html")
/// let answer = try await viewer.request("getUserInfo")
/// #expect(answer.status == .success)
/// ```
package final class ViewerClient: Sendable {
    /// The viewer id sent to the host.
    package let viewerId: String
    /// The underlying connection.
    package let connection: WebSocketTextConnection
    /// Host events received, in order (`hello` first).
    package let events = Mailbox<HostEvent>()
    /// Every message received, in order, as JSON: for counting answers.
    package let received = Mutex<[JSONValue]>([])
    /// Requests waiting for their answer and answers that came before anyone waited, by GUID,
    /// under one lock: an answer is either handed to its waiter or kept, never lost between the two.
    private let answers = Mutex(Answers())
    private let counter = Atomic<Int>(0)

    /// Why a request could not be completed.
    enum ClientError: Error, CustomStringConvertible {
        case noAnswer(command: String, guid: String, seconds: Int)
        package var description: String {
            switch self {
            case .noAnswer(let command, let guid, let seconds):
                return "no answer to '\(command)' (GUID \(guid)) within \(seconds) s"
            }
        }
    }

    private init(viewerId: String, connection: WebSocketTextConnection) {
        self.viewerId = viewerId
        self.connection = connection
    }

    /// Connects as viewer `viewerId` showing `slide` of presentation `presentationId`.
    /// `pageLoad` identifies the page load; reuse it to simulate a reconnect of the same page.
    /// `storyVersion` is the version of the Story context the page was served (the
    /// `data-storybridge-story` attribute of its slide), as a browser's client sends it.
    package static func connect(
        baseURL: String, token: String, presentationId: Int, slide: String,
        viewerId: String = UUID().uuidString, pageLoad: String = UUID().uuidString, viaDeepLink: Bool = false,
        storyVersion: String? = nil
    ) async throws -> ViewerClient {
        let wsBase = baseURL.replacingOccurrences(of: "http://", with: "ws://")
        var components = URLComponents()
        components.queryItems =
            [
                URLQueryItem(name: "viewer", value: viewerId), URLQueryItem(name: "presentation", value: String(presentationId)),
                URLQueryItem(name: "slide", value: slide), URLQueryItem(name: "load", value: pageLoad),
                URLQueryItem(name: "token", value: token),
            ] + (viaDeepLink ? [URLQueryItem(name: "deeplink", value: "1")] : [])
            + (storyVersion.map { [URLQueryItem(name: "story", value: $0)] } ?? [])
        let url = wsBase + ContentPaths.reservedPrefix + "ws" + (components.string ?? "")
        let connection = try await WebSocketTextConnection.connect(url: url)
        let client = ViewerClient(viewerId: viewerId, connection: connection)
        Task { await client.readLoop() }
        return client
    }

    private func readLoop() async {
        while let text = await connection.receiveUntilClosed() {
            guard let json = try? JSONValue.parse(text) else { continue }
            received.withLock { $0.append(json) }
            if let response = BridgeResponse(json: json) {
                let waiter = answers.withLock { answers -> Waiter? in
                    guard let waiter = answers.waiters.removeValue(forKey: response.guid) else {
                        answers.early[response.guid] = response
                        return nil
                    }
                    return waiter
                }
                if let waiter {
                    waiter.timer?.cancel()
                    waiter.continuation.resume(returning: response)
                }
            } else if let event = HostEvent(json: json) {
                await events.put(event)
            }
        }
        await events.finish()
        let pending = answers.withLock { answers -> [Waiter] in
            defer { answers.waiters.removeAll() }
            return Array(answers.waiters.values)
        }
        for waiter in pending {
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: nil)
        }
    }

    /// A fresh GUID in the format storyclm.js uses.
    package func makeGUID() -> String {
        let number = counter.add(1, ordering: .relaxed).newValue
        let hex = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        return "GUID_\(number)\(hex)"
    }

    /// Sends a command with a GUID and waits for its answer. The default wait is generous, so that
    /// a test on a loaded machine (all suites start at once) does not fail by waiting too little;
    /// script steps pass their own.
    package func request(
        _ command: String, data: JSONValue = .emptyObject, timeout: Duration = .seconds(30)
    ) async throws -> BridgeResponse {
        let guid = makeGUID()
        send(BridgeRequest(command: command, data: data, guid: guid))
        guard let response = await answer(to: guid, timeout: timeout) else {
            throw ClientError.noAnswer(command: command, guid: guid, seconds: Int(timeout.components.seconds))
        }
        return response
    }

    /// Sends a request as is (with or without GUID) and does not wait.
    package func send(_ request: BridgeRequest) {
        connection.send(request.json.jsonString())
    }

    /// Sends requests in one write to the socket and does not wait: a client pipelining them,
    /// whose frames the host finds waiting together.
    package func send(together requests: [BridgeRequest]) {
        connection.send(together: requests.map { $0.json.jsonString() })
    }

    /// Sends raw text, for tests of malformed frames.
    package func sendRaw(_ text: String) {
        connection.send(text)
    }

    /// Waits for the answer to `guid`; `nil` on timeout.
    package func answer(to guid: String, timeout: Duration = .seconds(30)) async -> BridgeResponse? {
        if let response = answers.withLock({ $0.early.removeValue(forKey: guid) }) { return response }
        return await withCheckedContinuation { continuation in
            let already = answers.withLock { answers -> BridgeResponse? in
                if let already = answers.early.removeValue(forKey: guid) { return already }
                answers.waiters[guid] = Waiter(continuation: continuation)
                return nil
            }
            if let already {
                continuation.resume(returning: already)
                return
            }
            // Cancelled when the answer comes first, and holding the client only weakly: a timer
            // that outlived its request would otherwise keep the client and its connection alive
            // for the whole timeout (in a long run, every connection of the last 15 seconds).
            let timer = Task { [weak self] in
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                let expired = self?.answers.withLock { $0.waiters.removeValue(forKey: guid) }
                expired?.continuation.resume(returning: nil)
            }
            let stillWaiting = answers.withLock { answers -> Bool in
                guard answers.waiters[guid] != nil else { return false }
                answers.waiters[guid]?.timer = timer
                return true
            }
            if !stillWaiting { timer.cancel() }
        }
    }

    /// Requests waiting for their answer, each with the timer that ends its wait, and answers
    /// that came first, by GUID.
    private struct Answers: Sendable {
        var waiters: [String: Waiter] = [:]
        var early: [String: BridgeResponse] = [:]
    }

    /// A request waiting for its answer.
    private struct Waiter: Sendable {
        let continuation: CheckedContinuation<BridgeResponse?, Never>
        var timer: Task<Void, Never>?
    }

    /// The next host event named `name` (others before it are skipped), or `nil` on timeout (30 s
    /// unless given: a caller that expects no event passes a short one).
    package func nextEvent(named name: String, timeout: Duration = .seconds(30)) async -> HostEvent? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let event = await events.next(timeout: deadline - ContinuousClock.now) else { return nil }
            if event.name == name { return event }
        }
        return nil
    }

    /// How many answers carrying `guid` arrived so far.
    package func answerCount(for guid: String) -> Int {
        received.withLock { messages in messages.filter { $0["GUID"]?.stringValue == guid }.count }
    }

    /// Closes the connection.
    package func close() async {
        await connection.close()
    }
}
