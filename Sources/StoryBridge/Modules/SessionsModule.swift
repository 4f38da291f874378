/// The Sessions module (§5.5): the viewer's sessions and their slides, and the `complete` flag.
package struct SessionsModule: BridgeModule {
    package let name = "Sessions"

    package init() {}

    /// Every command reads or writes the analytics database, in the page's order.
    package var commands: CommandTable {
        BridgeCommand("getSessions") { _, context in
            .array(
                try await context.sessions.store.sessions(userId: context.identity.user.id).map {
                    ["sessionId": .string($0.id), "presentationId": .int($0.presentationId), "created": $0.json["created"] ?? .null]
                })
        }
        BridgeCommand("getSessionById") { request, context in
            try await Self.describeSession(id: try request.string("id"), store: context.sessions.store)
        }
        BridgeCommand.replying("getCurrentSessions") { _, context in
            let id = try await context.sessions.currentSessionId(context.viewer)
            return ModuleReply(encoded: try Self.answer(try await context.sessions.store.mirroredSession(id: id), id: id))
        }
        .answeringFromMemory(encoded: { _, context in
            // The viewer's session, when its mirror holds it (with the answer written).
            guard let id = context.viewer.latest(\.sessionId), let found = context.sessions.store.sessionMirror.lookup(id)
            else { return nil }
            return try Self.answer(found, id: id)
        })
        BridgeCommand.recording("setSessionComplete") { _, context in
            let store = context.sessions.store
            return PreparedRecord(
                database: store.database,
                updates: store.markingComplete(sessionId: try await context.sessions.currentSessionId(context.viewer)))
        }
    }

    /// The session `id` with its slides `[{id, name, duration, created}]` (one read); 404 when
    /// there is none.
    static func describeSession(id: String, store: AnalyticsStore) async throws -> JSONValue {
        let found = try await store.sessionWithSlideViews(id: id)
        guard let described = SessionWithSlideViews.describe(found?.0, found?.1 ?? []) else { throw notFound(id) }
        return described
    }

    /// The answer for session `id` as read, with its wire text (404 when there is no such session).
    static func answer(_ found: SessionWithSlideViews, id: String) throws(BridgeError) -> EncodedJSON {
        guard let described = found.described else { throw notFound(id) }
        return described
    }

    private static func notFound(_ id: String) -> BridgeError { .notFound("Session '\(id)' not found") }
}

/// The CustomEvents module (§5.5): one value per key per session.
struct CustomEventsModule: BridgeModule {
    package let name = "CustomEvents"

    package init() {}

    /// Every command reads or writes the analytics database, in the page's order, so a read sees
    /// the page's own earlier write.
    package var commands: CommandTable {
        BridgeCommand.recording("setCustomEvent", handler: setCustomEvent)
        BridgeCommand("getCustomEventByKey") { request, context in
            let key = try request.string("key")
            let sessionId = try await context.sessions.currentSessionId(context.viewer)
            return try Self.answer(key: key, value: try await context.sessions.store.customEventValue(sessionId: sessionId, key: key))
        }
        .answeringFromMemory { request, context in
            // The viewer's session, when its mirror holds its events.
            let key = try request.string("key")
            guard let sessionId = context.viewer.latest(\.sessionId),
                case .known(let value) = context.sessions.store.customEventCache.lookup(session: sessionId, key: key)
            else { return nil }
            return try Self.answer(key: key, value: value)
        }
        BridgeCommand.recording("deleteCustomEventByKey") { request, context in
            let key = try request.string("key")
            let store = context.sessions.store
            let delete = store.deletingCustomEvent(sessionId: try await context.sessions.currentSessionId(context.viewer), key: key)
            return PreparedRecord(database: store.database, data: ["key": .string(key)]) { db in _ = try delete(db) }
        }
        BridgeCommand("getCustomEventsObject", handler: customEventsObject)
    }

    private func setCustomEvent(_ request: BridgeRequest, context: BridgeContext) async throws -> PreparedRecord {
        let key = try request.nonEmptyString("key")
        let value = try request.stringified("value")
        let sessionId = try await context.sessions.currentSessionId(context.viewer)
        let presentationId = context.viewer.latest(\.presentationId) ?? 0
        let store = context.sessions.store
        return PreparedRecord(
            database: store.database,
            updates: store.upserting(
                CustomEventRecord(
                    id: UUIDs.make(), sessionId: sessionId, presentationId: presentationId, userId: context.identity.user.id,
                    key: key, value: value, stamp: context.sessions.stampNow())))
    }

    /// The answer to `getCustomEventByKey` for `key`, whose value is `value` (404 when it has none).
    private static func answer(key: String, value: String?) throws(BridgeError) -> JSONValue {
        guard let value else { throw BridgeError.notFound("No custom event with key '\(key)' in this session") }
        return ["value": .string(value)]
    }

    /// The session's custom events as one object (the current session unless `sessionId` is given).
    private func customEventsObject(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let store = context.sessions.store
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
