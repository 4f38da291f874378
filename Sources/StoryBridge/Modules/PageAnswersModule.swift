/// Questions a page can answer about itself while its bridge socket connects, and how the host
/// hears of those answers (docs/PROTOCOL.md §3.8, "Answers the page gives itself").
///
/// A slide asks for its own name and for its navigation data as soon as its scripts run, long
/// before the browser hands it its connected socket (after the slide's load event). The page
/// knows both answers exactly as the host would give them: the slide is the page's own, and the
/// navigation data is what the host handed over with the `navigate` event that led here. So while
/// the socket is not open and nothing waits to be sent, client.js answers these two commands
/// itself, when the host says (in the client's script tag) that its built-in modules answer them;
/// once the socket is open it reports each such exchange (`storybridge.pageAnswered`), and the
/// host shows it to the bridge's observers (inspector, metrics) like any other.
package enum PageAnswers {
    /// The commands a page may answer, with the built-in module that must be answering them.
    static let candidates: [(command: String, module: any BridgeModule.Type)] = [
        ("getNavigationData", BaseModule.self), ("getCurrentSlideName", PresentationModule.self),
    ]

    /// The command by which a page reports the exchanges it answered.
    package static let reportCommand = "storybridge.pageAnswered"

    /// The commands pages of `bridge` may answer themselves: those whose built-in module still
    /// answers them (none that an embedding program has given to a module of its own).
    package static func allowed(by bridge: Bridge) -> [String] {
        bridge.derivedList("pageAnswers") { bridge in
            candidates.compactMap { candidate in
                guard let module = bridge.registration(for: candidate.command)?.module,
                    ObjectIdentifier(type(of: module)) == ObjectIdentifier(candidate.module)
                else { return nil }
                return candidate.command
            }
        }
    }
}

/// Takes a page's report of the exchanges it answered itself (``PageAnswers``) and hands each to
/// the bridge's observers. Exchanges of other commands, or whose answer does not match its
/// request, are left out with a warning.
struct PageAnswersModule: BridgeModule {
    let name = "PageAnswers"
    /// Shows one exchange (viewer, request, answer) to the bridge's observers.
    let report: @Sendable (_ viewerId: String, _ request: BridgeRequest, _ answer: BridgeResponse) -> Void

    var commands: CommandTable {
        BridgeCommand.fromMemory(PageAnswers.reportCommand, .changesState) { request, context in
            guard case .array(let exchanges)? = try request.member("exchanges") else {
                throw BridgeError.invalidData(field: "exchanges", reason: "must be an array of {request, answer}")
            }
            let commands = Set(PageAnswers.candidates.map(\.command))
            var reported = 0
            for exchange in exchanges {
                guard let requestJSON = exchange["request"], var canonical = try? BridgeRequest(json: requestJSON),
                    case let command = CommandNames.canonical(canonical.command), commands.contains(command),
                    let guid = canonical.guid,
                    let answer = exchange["answer"].flatMap(BridgeResponse.init(json:)), answer.guid == guid
                else {
                    context.logger.warning(
                        "a page reported an answer it may not give itself", metadata: ["exchange": "\(exchange.jsonString())"])
                    continue
                }
                canonical.command = command
                report(context.viewer.id, canonical, answer)
                reported += 1
            }
            return ["reported": .int(reported)]
        }
    }
}
