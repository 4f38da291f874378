import HummingbirdWebSocket
import StoryBridge

/// The inspector's live feed over a WebSocket: the recent entries, `{"type":"live"}`, then each
/// new entry as it happens, until the inspector page goes away.
enum InspectorStream {
    static func serve(feed: InspectorFeed, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let (id, entries) = feed.subscribe()
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await text in entries {
                    do { try await outbound.write(.text(text)) } catch { break }
                }
            }
            // The page sends nothing; reading tells when it closes.
            do {
                for try await _ in inbound.messages(maxSize: 4096) {}
            } catch {}
            feed.unsubscribe(id)
        }
    }
}
