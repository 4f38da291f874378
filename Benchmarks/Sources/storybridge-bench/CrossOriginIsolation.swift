import Foundation
import StoryBridge
import StoryBridgeTesting

/// Makes the documents a tab loads from one origin cross-origin isolated, so that the page's
/// `performance.now()` counts in 5 µs steps instead of the 0.1 ms (with jitter) of an ordinary
/// page: the in-page round trips measured are a few tenths of a millisecond, and at 0.1 ms their
/// percentiles, and the ratios between them, could only move in steps of a third or a half.
///
/// The tab's DevTools session pauses each document response from `origin` (Fetch domain) and
/// hands the tab the same response with `Cross-Origin-Opener-Policy: same-origin` and
/// `Cross-Origin-Embedder-Policy: require-corp` added (`Fetch.fulfillRequest`; headers changed with
/// `Fetch.continueResponse` do not make the document isolated in Chromium 156). A document handed
/// over that way was not loaded from the network, and Chromium counts it as public: the browser
/// runs with `LocalNetworkAccessChecks` off, or it would refuse the page's sockets to 127.0.0.1.
///
/// The host itself is unchanged and sends no such headers: what is measured is the same page, the
/// same sockets and the same bridge, timed with a finer clock. (An isolated document gets a
/// renderer process of its own; the echo it is compared with is measured from the same document.)
struct CrossOriginIsolation {
    let devTools: DevToolsConnection
    let watcher: Task<Void, Never>

    /// Starts pausing and completing the documents of `origin` (`http://127.0.0.1:PORT`) in the
    /// tab of `devTools`; call before navigating.
    static func start(origin: String, devTools: DevToolsConnection) async throws -> CrossOriginIsolation {
        try await devTools.send(
            "Fetch.enable",
            ["patterns": [["urlPattern": .string(origin + "/*"), "resourceType": "Document", "requestStage": "Response"]]])
        let watcher = Task {
            while let event = await devTools.events.next() {
                guard event["method"]?.stringValue == "Fetch.requestPaused", let params = event["params"],
                    let requestId = params["requestId"]?.stringValue
                else { continue }
                var headers = params["responseHeaders"]?.arrayValue ?? []
                headers.append(["name": "Cross-Origin-Opener-Policy", "value": "same-origin"])
                headers.append(["name": "Cross-Origin-Embedder-Policy", "value": "require-corp"])
                let body = try? await devTools.send("Fetch.getResponseBody", ["requestId": .string(requestId)])
                _ = try? await devTools.send(
                    "Fetch.fulfillRequest",
                    [
                        "requestId": .string(requestId), "responseCode": params["responseStatusCode"] ?? .int(200),
                        "responseHeaders": .array(headers), "body": .string(Self.base64Body(body)),
                    ])
            }
        }
        return CrossOriginIsolation(devTools: devTools, watcher: watcher)
    }

    /// The body of a `Fetch.getResponseBody` result, base64-encoded as `Fetch.fulfillRequest` wants it.
    private static func base64Body(_ result: JSONValue?) -> String {
        let body = result?["body"]?.stringValue ?? ""
        if result?["base64Encoded"] == .bool(true) { return body }
        return Data(body.utf8).base64EncodedString()
    }

    /// Stops pausing documents (the watcher then only reads the tab's events until it closes).
    func stop() async {
        watcher.cancel()
        _ = try? await devTools.send("Fetch.disable")
    }
}
