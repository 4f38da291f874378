import Foundation
import Hummingbird
import NIOCore
import StoryBridge
import Synchronization

/// `GET /__storybridge/early`: a page's first reads, sent while its bridge socket connects, as a
/// script request (docs/PROTOCOL.md §3.9). The query is the socket's (viewer, presentation, slide,
/// page load, token) plus `frame`, the request or array of requests as the socket would carry it;
/// the answer is a script that hands the host's answer texts to the client
/// (`window.__storybridge.earlyAnswered([...])`), or with `as=json` the JSON array of those texts
/// (the client's synchronous request once its document is parsed). A script a page inserts while
/// it loads runs within the load, where the socket's `open` comes only after the load event and a
/// rendering pass. The page load is entered here as the socket would enter it, so the socket that follows
/// (same page load) is a reconnect: nothing is entered or recorded twice.
struct EarlyRequests: Sendable {
    let bridge: BridgeSocket
    let token: LaunchToken
    let refusals: RefusalLog

    static let path = "early"
    /// The longest frame taken (bytes of JSON); the client sends longer ones over the socket.
    static let maxFrameBytes = 4096

    func add(to router: Router<HostRequestContext>) {
        router.group("__storybridge").add(middleware: TokenMiddleware(token: token, refusals: refusals))
            .get(RouterPath(stringLiteral: Self.path)) { request, context in try await answer(request, context: context) }
    }

    private func answer(_ request: Request, context: HostRequestContext) async throws -> Response {
        if let refusal = context.refusal { throw refusal }
        let page: PageConnectionRequest
        switch PageAdmission(library: bridge.host.library).admit(request) {
        case .failure(let refusal):
            refusals.record(refusal, request)
            throw refusal
        case .success(let admitted):
            page = admitted
        }
        guard let frame = request.uri.queryParameters["frame"], !frame.isEmpty else {
            throw HostHTTPError(.badRequest, "Refused: query parameter 'frame' is missing")
        }
        guard frame.utf8.count <= Self.maxFrameBytes else {
            throw HostHTTPError(.contentTooLarge, "Refused: an early frame holds at most \(Self.maxFrameBytes) bytes")
        }
        // Only what the page may send early (the host's list in the slide): anything else goes on
        // the socket, so a page that sends it here is refused and sends it there.
        let read = BridgeRequest.read(frame: String(frame))
        let allowed = Set(EarlyAnswers.allowed(by: bridge.host.bridge))
        let requests: [BridgeRequest]
        switch read {
        case .success(.request(let request)): requests = [request]
        case .success(.queue(let items)): requests = items.compactMap { try? $0.get() }
        case .failure(let error): throw HostHTTPError(.badRequest, "Refused: the early frame cannot be read: \(error)")
        }
        if case .success(.queue(let items)) = read, requests.count != items.count {
            throw HostHTTPError(.badRequest, "Refused: an early frame holds only requests")
        }
        for request in requests {
            guard request.guid != nil, allowed.contains(CommandNames.canonical(request.command)) else {
                throw HostHTTPError(
                    .badRequest, "Refused: '\(request.command)' is not sent early (with a GUID, one of data-early-answers)")
            }
        }
        guard let answers = await bridge.answerEarly(page, frame: read) else {
            throw HostHTTPError(
                .conflict, "Refused: the page load is being recorded by its socket; its requests go there")
        }
        let texts = answers.map { JSONValue.string(String(buffer: $0)).jsonString() }.joined(separator: ",")
        var response: Response
        if request.uri.queryParameters["as"] == "json" {
            response = Response.body("[" + texts + "]", type: "application/json", cache: "no-store")
        } else {
            let script = "window.__storybridge&&window.__storybridge.earlyAnswered([" + texts + "]);"
            response = Response.body(script, type: "text/javascript; charset=utf-8", cache: "no-store")
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }
}

extension BridgeSocket {
    /// Enters `page`'s load (as a socket does), routes `frame` through a connection of its own and
    /// returns the texts written to it, once everything it owes is written. Events are not sent
    /// here: the page's socket, when it connects, is attached to the viewer. `nil` when another
    /// path (its socket, as a rule: the host often has it before the page hears of it) entered
    /// the page load and its records, which these reads could see, are still being written.
    func answerEarly(_ page: PageConnectionRequest, frame: Result<BridgeRequest.Frame, FrameError>) async -> [ByteBuffer]? {
        let viewer = await host.viewers.lease(id: page.viewerId)
        defer { host.viewers.release(viewer) }
        let context = host.context(for: viewer)
        let entered = await host.enterPage(
            viewer, presentationId: page.presentationId, slide: page.slide, pageLoad: page.pageLoad,
            viaDeepLink: page.viaDeepLink, early: true)
        if !entered.entry.isNewPageLoad, await !viewer.mayReadBeforeRecord(pageLoad: page.pageLoad) { return nil }
        let written = Mutex<[ByteBuffer]>([])
        // Early requests only read, and none reads what recording the page load writes (the slide
        // view of the slide left): in a page load that keeps its session they go first. A new
        // session waits for its record, which it reads. A page load another path entered: it
        // keeps its session or is recorded (checked above).
        let connection = PageConnection(
            bridge: host.bridge, context: context, maxInFlight: maxInFlight,
            pageLoad: entered.keepsSession ? .recorded : .recording(readsMayGoFirst: false)
        ) { message, _ in written.withLock { $0.append(message) } }
        // The records of the page load are written whatever happens to this request; when the
        // answers went first they are not awaited here (the task is left to run on its own).
        Task {
            await host.recordPageLoad(entered)
            connection.pageLoadRecorded()
        }
        await withDiscardingTaskGroup { group in
            group.addTask { await connection.runWriter() }
            var reader = PageConnection.Reader()
            await connection.receive(connection.route(frame), reader: &reader) { work in
                group.addTask { await work() }
            }
            await connection.drained()
            connection.finishReading()
            connection.close()
        }
        return written.withLock { $0 }
    }
}
