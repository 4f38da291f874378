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
enum CrossOriginIsolation {
    /// Loads `url`, a document of `origin` (`http://127.0.0.1:PORT`), in `page`, cross-origin
    /// isolated: its response is paused once and handed over with the two headers added.
    static func navigate(_ page: BrowserPage, to url: String, origin: String) async throws {
        let devTools = page.devTools
        try await devTools.send(
            "Fetch.enable",
            ["patterns": [["urlPattern": .string(origin + "/*"), "resourceType": "Document", "requestStage": "Response"]]])
        // Hands over the one document the navigation loads, then stops reading the tab's events.
        let handOver = Task {
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
                        "responseHeaders": .array(headers), "body": .string(base64Body(body)),
                    ])
                return
            }
        }
        // A navigation that fails leaves the task waiting until the tab closes.
        try await page.navigate(to: url)
        await handOver.value
        try await devTools.send("Fetch.disable")
    }

    /// The body of a `Fetch.getResponseBody` result, base64-encoded as `Fetch.fulfillRequest` wants it.
    private static func base64Body(_ result: JSONValue?) -> String {
        let body = result?["body"]?.stringValue ?? ""
        if result?["base64Encoded"] == .bool(true) { return body }
        return Data(body.utf8).base64EncodedString()
    }
}
