import Foundation
import StoryBridge

/// One browser tab: navigate, evaluate JavaScript, click, wait for conditions, take screenshots.
package final class BrowserPage: Sendable {
    /// A script that threw, or a condition that did not come true in time.
    enum PageError: Error, CustomStringConvertible {
        case scriptFailed(expression: String, message: String)
        case timedOut(condition: String, seconds: Double, last: String)

        package var description: String {
            switch self {
            case .scriptFailed(let expression, let message):
                return "script failed: \(message)\n  in: \(expression.prefix(200))"
            case .timedOut(let condition, let seconds, let last):
                return "timed out after \(seconds) s waiting for: \(condition.prefix(200)) (last value: \(last))"
            }
        }
    }

    /// The DevTools session of the tab.
    package let devTools: DevToolsConnection

    init(devTools: DevToolsConnection) {
        self.devTools = devTools
    }

    /// Loads `url` and waits until the new document has loaded. The document being left is
    /// marked first, so a check that runs before the navigation commits cannot take the old
    /// document (an `about:blank` is "complete" too) for the new one.
    package func navigate(to url: String, timeout: Duration = .seconds(20)) async throws {
        let marker = UUID().uuidString
        _ = try? await evaluate("window.__storybridgeLeaving = '\(marker)'")
        let result = try await devTools.send("Page.navigate", ["url": .string(url)])
        if let failure = result["errorText"]?.stringValue, !failure.isEmpty {
            throw PageError.scriptFailed(expression: "Page.navigate \(url)", message: failure)
        }
        _ = try await waitFor(
            "window.__storybridgeLeaving !== '\(marker)' && document.readyState === 'complete'", timeout: timeout)
    }

    /// Waits until the document is complete, optionally at a URL containing `fragment`.
    func waitForLoad(urlContaining fragment: String?, timeout: Duration = .seconds(20)) async throws {
        let urlCheck = fragment.map { "location.href.indexOf(\(JSONValue.string($0).jsonString())) >= 0 && " } ?? ""
        _ = try await waitFor("\(urlCheck)document.readyState === 'complete'", timeout: timeout)
    }

    /// Evaluates `expression` (awaiting a promise, up to `timeout`) and returns its JSON value.
    @discardableResult
    package func evaluate(_ expression: String, timeout: Duration = .seconds(30)) async throws -> JSONValue {
        let result = try await devTools.send(
            "Runtime.evaluate",
            ["expression": .string(expression), "returnByValue": true, "awaitPromise": true], timeout: timeout)
        if let details = result["exceptionDetails"] {
            let message =
                details["exception"]?["description"]?.stringValue ?? details["text"]?.stringValue ?? details.jsonString()
            throw PageError.scriptFailed(expression: expression, message: message)
        }
        return result["result"]?["value"] ?? .null
    }

    /// Polls `condition` until it is truthy and returns its value.
    @discardableResult
    package func waitFor(_ condition: String, timeout: Duration = .seconds(15)) async throws -> JSONValue {
        let deadline = ContinuousClock.now + timeout
        var last = JSONValue.null
        while ContinuousClock.now < deadline {
            do {
                last = try await evaluate(condition)
                switch last {
                case .null, .bool(false), .int(0), .string(""): break
                default: return last
                }
            } catch PageError.scriptFailed {
                // The page may be between loads; try again.
            } catch let error as DevToolsConnection.ProtocolError where error.isNavigationRace {
                // The document was replaced while the condition ran; ask the new one.
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let seconds = Double(timeout.components.seconds)
        throw PageError.timedOut(condition: condition, seconds: seconds, last: last.jsonString())
    }

    /// Clicks the first element matching `selector`.
    package func click(_ selector: String) async throws {
        let quoted = JSONValue.string(selector).jsonString()
        try await evaluate(
            "(function(){var e=document.querySelector(\(quoted));if(!e){throw new Error('no element '+\(quoted));}e.click();return true;})()"
        )
    }

    /// Types `text` into the input matching `selector` (replacing its value) and fires `input`.
    package func type(_ selector: String, _ text: String) async throws {
        let quoted = JSONValue.string(selector).jsonString()
        let value = JSONValue.string(text).jsonString()
        try await evaluate(
            "(function(){var e=document.querySelector(\(quoted));if(!e){throw new Error('no element '+\(quoted));}"
                + "e.value=\(value);e.dispatchEvent(new Event('input',{bubbles:true}));return true;})()")
    }

    /// The text content of the first element matching `selector`, or `nil` when there is none.
    package func text(_ selector: String) async throws -> String? {
        let quoted = JSONValue.string(selector).jsonString()
        return try await evaluate("(function(){var e=document.querySelector(\(quoted));return e?e.textContent:null;})()")
            .stringValue
    }

    /// A PNG screenshot of the viewport.
    package func screenshot() async throws -> Data {
        let result = try await devTools.send("Page.captureScreenshot", ["format": "png"])
        guard let encoded = result["data"]?.stringValue, let data = Data(base64Encoded: encoded) else {
            throw PageError.scriptFailed(expression: "Page.captureScreenshot", message: "no image data")
        }
        return data
    }

    /// Closes the tab's DevTools session.
    package func close() async {
        _ = try? await devTools.send("Page.close")
        await devTools.close()
    }
}
