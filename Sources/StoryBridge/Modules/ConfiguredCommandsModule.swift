import AsyncHTTPClient
import Foundation
import NIOCore

/// Answers the commands declared in the config file (``ConfiguredCommand``): fixed replies,
/// templates filled from the request, and webhooks.
package struct ConfiguredCommandsModule: BridgeModule {
    package let name = "ConfiguredCommands"
    /// The declared commands by name (the last of several with the same name wins).
    package let definitions: [String: ConfiguredCommand]

    package init(_ commands: [ConfiguredCommand]) {
        definitions = Dictionary(commands.map { (CommandNames.canonical($0.name), $0) }, uniquingKeysWith: { _, last in last })
    }

    /// One command per definition. Fixed and template answers come in the page's order; a webhook
    /// waits on the network, so it runs on its own task, with a deadline 2 s after its own timeout.
    package var commands: CommandTable {
        for (name, definition) in definitions.sorted(by: { $0.key < $1.key }) {
            BridgeCommand.replying(name, Self.policy(of: definition)) { request, context in
                try await answer(definition, request: request, context: context)
            }
        }
    }

    static func policy(of definition: ConfiguredCommand) -> AwaitingPolicy {
        guard case .webhook(let hook) = definition.source else { return .ordered }
        return .concurrent(.after(.milliseconds(Int64((hook.timeoutSeconds + 2) * 1000))))
    }

    private func answer(_ definition: ConfiguredCommand, request: BridgeRequest, context: BridgeContext) async throws -> ModuleReply {
        let state = context.viewer.latestState
        let values: [String: JSONValue] = [
            "data": request.data, "command": .string(request.command), "guid": request.guid.map(JSONValue.string) ?? .null,
            "viewer": .string(context.viewer.id), "presentation": state.presentationId.map(JSONValue.int) ?? .null,
            "slide": state.currentSlide.map(JSONValue.string) ?? .null,
        ]
        switch definition.source {
        case .reply(let value):
            return answer(definition, data: value)
        case .template(let template):
            return answer(definition, data: TemplateFiller.fill(template, values: values))
        case .webhook(let hook):
            return try await callWebhook(hook, request: request, values: values)
        }
    }

    private func answer(_ definition: ConfiguredCommand, data: JSONValue) -> ModuleReply {
        let ok = (200..<300).contains(definition.status)
        return ModuleReply(status: ok ? .success : .failure, code: definition.status, message: definition.message, data: data)
    }

    private func callWebhook(_ hook: ConfiguredCommand.Webhook, request: BridgeRequest, values: [String: JSONValue]) async throws
        -> ModuleReply
    {
        var outgoing = HTTPClientRequest(url: hook.url)
        outgoing.method = .POST
        outgoing.headers.add(name: "Content-Type", value: "application/json")
        for (name, value) in hook.headers { outgoing.headers.add(name: name, value: value) }
        let body: JSONValue = [
            "Command": .string(request.command), "Data": request.data, "GUID": values["guid"] ?? .null,
            "viewer": values["viewer"] ?? .null, "presentation": values["presentation"] ?? .null,
            "slide": values["slide"] ?? .null,
        ]
        outgoing.body = .bytes(ByteBuffer(string: body.jsonString()))
        let response: HTTPClientResponse
        let collected: ByteBuffer
        do {
            response = try await HTTPModuleClient.shared.execute(
                outgoing, timeout: .milliseconds(Int64(hook.timeoutSeconds * 1000)))
            collected = try await response.body.collect(upTo: 10 << 20)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw BridgeError.custom(
                code: 504, message: "Webhook \(hook.url) did not answer within \(hook.timeoutSeconds) s", data: .emptyObject)
        } catch {
            throw BridgeError.custom(code: 502, message: "Webhook \(hook.url) cannot be reached: \(error)", data: .emptyObject)
        }
        let status = Int(response.status.code)
        let text = String(buffer: collected)
        guard (200..<300).contains(status) else {
            return ModuleReply(
                status: .failure, code: status, message: "Webhook answered \(status): \(text.prefix(300))", data: .emptyObject)
        }
        if text.trimmingSpaces().isEmpty { return ModuleReply(data: .emptyObject) }
        guard let data = try? JSONValue.parse(text) else {
            throw BridgeError.custom(code: 502, message: "Webhook \(hook.url) answered something that is not JSON", data: .emptyObject)
        }
        return ModuleReply(data: data)
    }
}
