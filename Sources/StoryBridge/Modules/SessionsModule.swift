/// The Sessions module (§5.5): the viewer's sessions and their slides, and the `complete` flag.
public struct SessionsModule: BridgeModule {
    public let name = "Sessions"
    public let commands = ["getSessions", "getSessionById", "getCurrentSessions", "setSessionComplete"]

    public init() {}

    public func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let store = context.sessions.store
        switch request.command {
        case "getSessions":
            return .array(
                try await store.sessions(userId: context.identity.user.id).map {
                    ["sessionId": .string($0.id), "presentationId": .int($0.presentationId), "created": $0.json["created"] ?? .null]
                })
        case "getSessionById":
            let id = try request.string("id")
            guard let session = try await store.session(id: id) else { throw BridgeError.notFound("Session '\(id)' not found") }
            return try await Self.describe(session, store: store)
        case "getCurrentSessions":
            let id = try await context.sessions.currentSessionId(context.viewer)
            guard let session = try await store.session(id: id) else { throw BridgeError.notFound("Session '\(id)' not found") }
            return try await Self.describe(session, store: store)
        default:  // setSessionComplete
            try await store.markComplete(sessionId: try await context.sessions.currentSessionId(context.viewer))
            return .emptyObject
        }
    }

    /// A session with its slides `[{id, name, duration, created}]`.
    static func describe(_ session: SessionRecord, store: AnalyticsStore) async throws -> JSONValue {
        guard case .object(var members) = session.json else { return session.json }
        members["slides"] = .array(
            try await store.slideViews(sessionId: session.id).map {
                ["id": .string($0.id), "name": .string($0.slideName), "duration": .int($0.duration), "created": $0.json["created"] ?? .null]
            })
        return .object(members)
    }
}

/// The CustomEvents module (§5.5): one value per key per session.
public struct CustomEventsModule: BridgeModule {
    public let name = "CustomEvents"
    public let commands = ["setCustomEvent", "getCustomEventByKey", "deleteCustomEventByKey", "getCustomEventsObject"]

    public init() {}

    public func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let store = context.sessions.store
        switch request.command {
        case "setCustomEvent":
            let key = try request.nonEmptyString("key")
            let value = try request.stringified("value")
            let sessionId = try await context.sessions.currentSessionId(context.viewer)
            let presentationId = await context.viewer.state.presentationId ?? 0
            try await store.upsert(
                CustomEventRecord(
                    id: UUIDs.make(), sessionId: sessionId, presentationId: presentationId, userId: context.identity.user.id,
                    key: key, value: value, stamp: context.sessions.stampNow()))
            return .emptyObject
        case "getCustomEventByKey":
            let key = try request.string("key")
            let sessionId = try await context.sessions.currentSessionId(context.viewer)
            guard let value = try await store.customEventValue(sessionId: sessionId, key: key) else {
                throw BridgeError.notFound("No custom event with key '\(key)' in this session")
            }
            return ["value": .string(value)]
        case "deleteCustomEventByKey":
            let key = try request.string("key")
            try await store.deleteCustomEvent(sessionId: try await context.sessions.currentSessionId(context.viewer), key: key)
            return ["key": .string(key)]
        default:  // getCustomEventsObject
            var sessionId = try request.optionalString("sessionId") ?? ""
            if sessionId.isEmpty {
                sessionId = try await context.sessions.currentSessionId(context.viewer)
            } else if try await store.session(id: sessionId) == nil {
                throw BridgeError.notFound("Session '\(sessionId)' not found")
            }
            var object: [String: JSONValue] = [:]
            for event in try await store.customEvents(sessionId: sessionId) { object[event.key] = .string(event.value) }
            return .object(object)
        }
    }
}
