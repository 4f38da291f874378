import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// How answers reach content callbacks: out of the caller of `StoryCLMBridge.StoryCLMHandler`,
/// without a 1 ms timer; an answer from the socket in a microtask right after the handler, one the
/// page gives itself in a task of its own (headless Chromium).
@Suite("Answer deferral in headless Chromium", .serialized)
struct AnswerDeferralTests {
    @Test("storyclm.js runs a callback once, after StoryCLMHandler has returned, without starting a timer")
    func ownLibrary() async throws {
        try await withBrowser { host, page in
            try await page.openSlide(on: host)
            let result = try await page.evaluate(
                """
                (async function () {
                  // Keep the request in the page (it is answered by hand below, twice).
                  var realPost = window.__storybridge.post, request = null;
                  window.__storybridge.post = function (message) { request = message; };
                  var calls = [], inside = true;
                  StoryCLMBridge.Invoke('getCurrentSlideName', {}, function (answer) {
                    calls.push({ inside: inside, name: answer.Data.name });
                  });
                  window.__storybridge.post = realPost;
                  var pageSetTimeout = window.setTimeout, timers = 0;
                  window.setTimeout = function () { timers += 1; return pageSetTimeout.apply(window, arguments); };
                  var answer = JSON.stringify({ GUID: request.GUID, Status: 'Success', ErrorCode: 0, ErrorMessage: '',
                    Data: { name: 'by-hand' } });
                  StoryCLMBridge.StoryCLMHandler(answer);
                  StoryCLMBridge.StoryCLMHandler(answer);
                  var callsRightAfter = calls.length;
                  inside = false;
                  window.setTimeout = pageSetTimeout;
                  await new Promise(function (resolve) { pageSetTimeout(resolve, 50); });
                  return { calls: calls, callsRightAfter: callsRightAfter, timers: timers };
                })()
                """)
            #expect(result["callsRightAfter"] == 0)
            #expect(result["calls"] == [["inside": false, "name": "by-hand"]])
            #expect(result["timers"] == 0)
        }
    }

    @Test("an answer from the socket reaches its storyclm.js callback right after StoryCLMHandler returns, before any other task")
    func socketAnswerInMicrotask() async throws {
        try await withBrowser { host, page in
            try await page.openSlide(on: host)
            let result = try await page.evaluate(
                """
                (async function () {
                  var steps = [], inside = false, handler = StoryCLMBridge.StoryCLMHandler;
                  var probe = new MessageChannel();
                  probe.port1.onmessage = function () { steps.push('next task'); };
                  // Only the answer to this request is watched: the host may push other messages
                  // (events, the viewer's state) through the same handler meanwhile.
                  var realPost = window.__storybridge.post, requestGUID = null;
                  window.__storybridge.post = function (message) {
                    if (requestGUID === null) { requestGUID = message.GUID; }
                    return realPost.apply(this, arguments);
                  };
                  StoryCLMBridge.StoryCLMHandler = function (text, delivery) {
                    var parsed = null;
                    try { parsed = JSON.parse(text); } catch (error) {}
                    if (!parsed || parsed.GUID !== requestGUID) { return handler.apply(StoryCLMBridge, arguments); }
                    // A task queued before the handler runs: a callback deferred to a task of its
                    // own would come after it, one in a microtask comes before.
                    probe.port2.postMessage(0);
                    inside = true;
                    handler.apply(StoryCLMBridge, arguments);
                    inside = false;
                    steps.push('handler returned' + (delivery && delivery.fromSocket ? ' (from the socket)' : ''));
                  };
                  var answered = new Promise(function (resolve) {
                    StoryCLM.Presentation.GetCurrentSlideName(function (answer) {
                      steps.push('callback ' + (inside ? 'inside' : 'outside') + ' ' + answer.data.slide);
                      resolve();
                    });
                  });
                  window.__storybridge.post = realPost;
                  await answered;
                  await new Promise(function (resolve) { setTimeout(resolve, 50); });
                  StoryCLMBridge.StoryCLMHandler = handler;
                  return steps;
                })()
                """)
            #expect(result == ["handler returned (from the socket)", "callback outside index.html", "next task"])
        }
    }

    @Test(
        "a legacy handler's 1 ms timer runs after the handler returned, with its arguments and before longer timers; the page's setTimeout is back afterwards"
    )
    func legacyHandlerTimer() async throws {
        try await withBrowser { host, page in
            try await page.openSlide(on: host)
            try await page.click("#link-legacy")
            try await page.waitForSlide("legacy.html")
            let result = try await page.evaluate(
                """
                (async function () {
                  var pageSetTimeout = window.setTimeout, steps = [], replacedWhileHandling = null, kept = null;
                  var done = new Promise(function (resolve) {
                    StoryCLMBridge.StoryCLMHandler = function (text) {
                      var answer = JSON.parse(text);
                      if (answer.GUID !== 'GUID_deferral') { return; }
                      replacedWhileHandling = window.setTimeout !== pageSetTimeout;
                      kept = window.setTimeout;
                      setTimeout(function () { steps.push('long'); resolve(); }, 30);
                      setTimeout(function (name) { steps.push('short:' + name); }, 1, answer.Data.slide);
                      steps.push('handler returns');
                    };
                  });
                  window.__storybridge.post({ Command: 'getCurrentSlideName', Data: {}, GUID: 'GUID_deferral' });
                  await done;
                  // The handler's setTimeout, kept and called after the handler: a real timer.
                  await new Promise(function (resolve) { kept(function () { steps.push('kept'); resolve(); }, 5); });
                  return { steps: steps, restored: window.setTimeout === pageSetTimeout,
                    replacedWhileHandling: replacedWhileHandling };
                })()
                """)
            #expect(result["steps"] == ["handler returns", "short:legacy.html", "long", "kept"])
            #expect(result["restored"] == true)
            #expect(result["replacedWhileHandling"] == true)
        }
    }
}
