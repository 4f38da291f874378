/// A stand-in for a storyclm.js 2.2 bundled by content we do not control, written for the browser
/// benchmark from the behaviour docs/PROTOCOL.md describes: it knows nothing of storybridge.
///
/// - `StoryCLMBridge.Invoke` queues `{Command, Data, GUID}` (a GUID only with a callback) and rings
///   the doorbell: a hidden iframe, created when the library loads, whose `src` is set to
///   `storyclm:SCLM_QUEUE` on every call.
/// - `StoryCLMBridge.GetQueue()` hands over the queue as JSON text and empties it.
/// - `StoryCLMBridge.StoryCLMHandler(jsonText)` defers the callback with `setTimeout(..., 1)`, as
///   the 2.2 library does, so a callback never runs inside the native caller. Chromium keeps a
///   1 ms timeout at 1 ms (only a 0 ms timeout is unclamped), so this timer is part of every
///   answer the library delivers unless the host's client runs it differently (PROTOCOL.md §3.8,
///   "Deferral of answers").
/// - `StoryCLM.Presentation.GetCurrentSlideName(callback)` wraps the answer in the usual
///   `{status, errorCode, errorMessage, data}` object.
enum LegacyStoryCLMLibrary {
    static let source = #"""
        (function () {
          var QUEUE_URL = 'storyclm:SCLM_QUEUE';
          var waiting = {};
          var outgoing = [];
          var sequence = 0;
          var bell = document.createElement('iframe');
          bell.style.display = 'none';
          document.documentElement.appendChild(bell);

          function guid() {
            sequence += 1;
            var hex = '';
            for (var i = 0; i < 32; i++) { hex += Math.floor(Math.random() * 16).toString(16); }
            return 'GUID_' + sequence + hex;
          }
          function invoke(command, data, callback) {
            var request = { Command: command, Data: data || {} };
            if (typeof callback === 'function') {
              request.GUID = guid();
              waiting[request.GUID] = callback;
            }
            outgoing.push(request);
            bell.src = QUEUE_URL;
          }
          function getQueue() {
            var text = JSON.stringify(outgoing);
            outgoing = [];
            return text;
          }
          function handler(text) {
            setTimeout(function () {
              if (!text) { return; }
              var answer = JSON.parse(text);
              if (!answer.GUID) { return; }
              var callback = waiting[answer.GUID];
              if (typeof callback !== 'function') { return; }
              callback(answer);
              delete waiting[answer.GUID];
            }, 1);
          }
          window.StoryCLMBridge = { Invoke: invoke, GetQueue: getQueue, StoryCLMHandler: handler };

          function ApiMessage(answer) {
            this.status = answer ? answer.Status : 'error';
            this.errorCode = answer ? answer.ErrorCode : -2;
            this.errorMessage = answer ? answer.ErrorMessage : 'Data is empty.';
            this.data = answer ? answer.Data : {};
          }
          window.StoryCLM = {
            Presentation: {
              GetCurrentSlideName: function (callback) {
                invoke('getCurrentSlideName', {}, function (answer) {
                  if (typeof callback === 'function') { callback(new ApiMessage(answer)); }
                });
              }
            }
          };
        })();
        """#
}
