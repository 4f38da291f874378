import Foundation
import StoryBridge

/// The inspector's view of the host at one moment (docs/INSPECTOR.md, "Snapshot"): viewers and
/// their state, recent sessions with their records, the upload queue, and the Story context of
/// each presentation a viewer shows.
enum InspectorSnapshot {
    /// Sessions shown, newest first.
    static let sessionLimit = 50

    /// The snapshot; throws when the analytics cannot be read (a corrupt record names itself).
    static func build(host: StoryBridgeHost, uploadCollector: String?) async throws -> JSONValue {
        var viewers: [JSONValue] = []
        var sessionViewers: [String: String] = [:]
        for viewer in await host.viewers.all {
            let state = await viewer.state
            let connected = await viewer.isConnected
            if let session = state.sessionId { sessionViewers[session] = viewer.id }
            viewers.append(viewerJSON(viewer.id, state: state, connected: connected, library: host.library))
        }
        viewers.sort { ($0["viewer"]?.stringValue ?? "") < ($1["viewer"]?.stringValue ?? "") }
        return [
            "version": .string(StoryBridgeVersion.current),
            "viewers": .array(viewers),
            "sessions": .array(try await sessions(host, current: sessionViewers)),
            "upload": try await upload(host, collector: uploadCollector),
            "storyContexts": await InspectorStoryContexts.build(
                host: host, presentationIds: Set(viewers.compactMap { $0["presentation"]?["id"]?.intValue })),
        ]
    }

    private static func viewerJSON(_ id: String, state: ViewerState, connected: Bool, library: PresentationLibrary) -> JSONValue {
        // The deck shown, looked up once.
        let shown = state.presentationId.map { ($0, library.presentation(id: $0)) }
        let presentation: JSONValue =
            shown.map { id, deck in
                [
                    "id": .int(id), "name": deck.map { .string($0.name) } ?? .null,
                    "dialect": deck.map { .string($0.dialect.rawValue) } ?? .null,
                ]
            } ?? .null
        // The picture of the slide on screen, where the delivery has one (Veeva, OCE).
        let thumbnail = shown.flatMap { id, deck in
            state.currentSlide.flatMap { slide in
                deck?.slides.first { $0.name == slide }?.thumbnail.map {
                    JSONValue.string(ContentPaths.slideURL(presentationId: id, slide: $0))
                }
            }
        }
        return [
            "viewer": .string(id), "connected": .bool(connected), "presentation": presentation,
            "slide": state.currentSlide.map(JSONValue.string) ?? .null, "slideThumbnail": thumbnail ?? .null,
            "history": .array(state.history.map(JSONValue.string)),
            "navigationData": InspectorFeed.clip(state.navigationData), "chrome": state.chrome.json,
            "sessionId": state.sessionId.map(JSONValue.string) ?? .null, "lastCause": .string(state.lastCause.rawValue),
        ]
    }

    private static func sessions(_ host: StoryBridgeHost, current: [String: String]) async throws -> [JSONValue] {
        let store = host.analytics
        var described: [JSONValue] = []
        for session in try await store.sessions(limit: sessionLimit) {
            let slides = try await store.slideViews(sessionId: session.id)
            let media = try await store.mediaViews(sessionId: session.id)
            let events = try await store.customEvents(sessionId: session.id)
            let kept = try await store.dialectRecords(sessionId: session.id)
            described.append([
                "sessionId": .string(session.id), "presentationId": .int(session.presentationId),
                "presentationName": host.library.presentation(id: session.presentationId).map { .string($0.name) } ?? .null,
                "viewer": .string(session.viewerId), "created": .string(AnalyticsFormat.timestamp(session.stamp.created)),
                "state": .int(session.state.rawValue), "complete": .bool(session.complete), "duration": .int(session.duration),
                "slidesCount": .int(session.slidesCount), "current": .bool(current[session.id] != nil),
                "slides": .array(
                    slides.map {
                        [
                            "slideName": .string($0.slideName), "duration": .int($0.duration), "navigation": .string($0.navigation),
                            "cause": .string($0.cause), "created": .string(AnalyticsFormat.timestamp($0.stamp.created)),
                        ]
                    }),
                "media": .array(
                    media.map {
                        [
                            "fileName": .string($0.fileName), "duration": .int($0.duration),
                            "created": .string(AnalyticsFormat.timestamp($0.stamp.created)),
                        ]
                    }),
                "customEvents": .array(
                    events.map {
                        [
                            "key": .string($0.key), "value": .string($0.value),
                            "created": .string(AnalyticsFormat.timestamp($0.stamp.created)),
                        ]
                    }),
                "records": .array(kept.records.map(InspectorFeed.clip)), "oceStates": .array(kept.oceStates.map(InspectorFeed.clip)),
            ])
        }
        return described
    }

    private static func upload(_ host: StoryBridgeHost, collector: String?) async throws -> JSONValue {
        guard case .object(var members) = try await host.analytics.uploadStatus().json else {
            return ["enabled": .bool(collector != nil), "collector": collector.map(JSONValue.string) ?? .null]
        }
        members["enabled"] = .bool(collector != nil)
        members["collector"] = collector.map(JSONValue.string) ?? .null
        return .object(members)
    }
}
