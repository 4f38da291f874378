import Foundation
import HTTPTypes
import Hummingbird
import StoryBridge

/// `/__storybridge/context`: a presentation's Story context from outside the page, with the
/// launch token as the inspector (docs/PROTOCOL.md §9.5). `GET` reads it, `PUT` sets a value
/// (body `{"value": V}` or `{"value": V, "type": T}`), `DELETE` removes a key; both change it as the
/// app side (the scheme's `appMutable` decides) and reach every open page of the presentation.
/// Answers are JSON that keeps integers and floats apart (`3` and `3.0`).
struct StoryContextRoutes: Sendable {
    /// The endpoint's path, the one under `/__storybridge/` that takes writes.
    static let path = "/__storybridge/context"
    /// The largest body a `PUT` may carry.
    static let maxBody = 1 << 20

    let host: StoryBridgeHost
    let token: LaunchToken
    let refusals: RefusalLog

    func add(to router: Router<HostRequestContext>) {
        let group = router.tokenGuarded(Self.path, token: token, refusals: refusals)
        group.get { request, _ in try await show(request) }
        group.put { request, _ in try await set(request) }
        group.delete { request, _ in try await delete(request) }
    }

    /// `?presentation=N[&keyPath=object.key]`: the whole context as the page gets it, or one value.
    private func show(_ request: Request) async throws -> Response {
        let presentation = try Self.presentation(request)
        guard let keyPath = request.uri.queryParameters["keyPath"].map(String.init) else {
            let story = try await Self.answering { try await host.storyContext.story(presentationId: presentation) }
            return Self.typedJSON(["presentation": .int(presentation), "story": story])
        }
        let address = try Self.address(keyPath)
        guard let value = try await Self.answering({ try await host.storyContext.value(at: address, presentationId: presentation) })
        else {
            throw HostHTTPError.notFound("No value at '\(address)' in the Story context of presentation \(presentation)")
        }
        return Self.typedJSON([
            "presentation": .int(presentation), "keyPath": .string(address.description), "value": value,
            "type": .string(StoryPropType.of(value).rawValue),
        ])
    }

    /// `?presentation=N&keyPath=object.key` with `{"value": V[, "type": T]}`.
    private func set(_ request: Request) async throws -> Response {
        let presentation = try Self.presentation(request)
        let address = try Self.address(try Self.required("keyPath", in: request))
        let buffer = try await request.body.collect(upTo: Self.maxBody)
        let body = try await Self.answering { try StoryContextJSON.parse(String(buffer: buffer)) }
        guard case .object(let members) = body, let raw = members["value"] else {
            throw HostHTTPError(.badRequest, "The body must be a JSON object {\"value\": V} or {\"value\": V, \"type\": T}")
        }
        let value: JSONValue = try await Self.answering {
            guard case .string(let typeName)? = members["type"] else { return raw }
            guard let type = StoryPropType(rawValue: typeName) else { throw StoryContextError.unknownType(typeName) }
            return try type.coerce(raw)
        }
        return try await change(StoryChange(address, .set(value)), presentation: presentation)
    }

    /// `?presentation=N&keyPath=object.key`.
    private func delete(_ request: Request) async throws -> Response {
        let presentation = try Self.presentation(request)
        let address = try Self.address(try Self.required("keyPath", in: request))
        return try await change(StoryChange(address, .delete), presentation: presentation)
    }

    private func change(_ change: StoryChange, presentation: Int) async throws -> Response {
        let outcome = try await Self.answering {
            try await host.storyContext.apply([change], by: .app, presentationId: presentation)
        }
        if let refusal = outcome.refusals.first ?? nil { throw Self.httpError(refusal) }
        let filled = try await Self.answering { host.storyContext.hostObjects(for: try host.storyContext.presentation(presentation)) }
        let value = outcome.context.value(at: change.address, filled: filled)
        var answer: [String: JSONValue] = [
            "presentation": .int(presentation), "keyPath": .string(change.address.description), "changed": .bool(outcome.changed),
        ]
        if let value {
            answer["value"] = value
            answer["type"] = .string(StoryPropType.of(value).rawValue)
        } else {
            answer["deleted"] = true
        }
        return Self.typedJSON(.object(answer))
    }

    /// Runs `body`, turning the context's typed errors and storage failures into HTTP answers.
    private static func answering<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StoryContextError {
            throw httpError(error)
        } catch let error as StorageError {
            throw HostHTTPError(.serviceUnavailable, "The Story context cannot be stored: \(error)")
        }
    }

    private static func httpError(_ error: StoryContextError) -> HostHTTPError {
        HostHTTPError(HTTPResponse.Status(code: error.httpStatus), error.description)
    }

    private static func typedJSON(_ value: JSONValue) -> Response {
        .body(StoryContextJSON.text(value), type: "application/json", cache: "no-store")
    }

    private static func required(_ name: String, in request: Request) throws -> String {
        guard let text = request.uri.queryParameters[Substring(name)], !text.isEmpty else {
            throw HostHTTPError(.badRequest, "The query needs '\(name)'")
        }
        return String(text)
    }

    private static func presentation(_ request: Request) throws -> Int {
        let text = try required("presentation", in: request)
        guard let id = Int(text) else { throw HostHTTPError(.badRequest, "'presentation' must be a presentation id, not '\(text)'") }
        return id
    }

    private static func address(_ text: String) throws -> StoryAddress {
        do {
            return try StoryAddress(text)
        } catch {
            throw httpError(error)
        }
    }
}
