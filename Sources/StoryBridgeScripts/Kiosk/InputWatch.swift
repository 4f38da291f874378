import StoryBridge

/// How `storybridge kiosk` learns that someone touched the screen (docs/design/FLEET.md §9.4):
/// a DevTools binding, `__sbKioskInput`, and a few lines run in every document (every frame)
/// before its own scripts, which call the binding on `pointerdown`, `keydown`, `wheel` and
/// `touchstart` in the capture phase of `window` (so a slide that stops an event's propagation
/// still counts it), at most once a second. Each call reaches the page's DevTools socket as a
/// `Runtime.bindingCalled` event; nothing of it is visible to the page but the binding's name.
enum InputWatch {
    /// The binding's name on the page's `window`.
    static let bindingName = "__sbKioskInput"

    /// The script run in every new document.
    static let script = """
        (function () {
          if (window.__sbKioskInputWatch) { return; }
          window.__sbKioskInputWatch = true;
          var last = 0;
          function seen() {
            var now = Date.now();
            if (now - last < 1000) { return; }
            last = now;
            // Looked up at each call: the binding may be installed after this script ran.
            try { window.\(bindingName)('input'); } catch (e) {}
          }
          ['pointerdown', 'keydown', 'wheel', 'touchstart'].forEach(function (type) {
            window.addEventListener(type, seen, { capture: true, passive: true });
          });
        })();
        """

    /// Installs the binding and the script in `page`, for every document it loads from now on
    /// (the page's `Runtime` domain is enabled, as ``HeadlessChromium`` leaves it).
    static func install(on page: BrowserPage) async throws {
        try await page.devTools.send("Runtime.addBinding", ["name": .string(bindingName)])
        try await page.devTools.send("Page.addScriptToEvaluateOnNewDocument", ["source": .string(script)])
    }

    /// Whether the DevTools `event` is the page reporting input.
    static func isInput(_ event: JSONValue) -> Bool {
        event["method"]?.stringValue == "Runtime.bindingCalled" && event["params"]?["name"]?.stringValue == bindingName
    }
}
