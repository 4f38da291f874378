import Foundation

/// The JavaScript that tells when a slide is settled, installed in every document of the
/// screenshot tab before the slide's own scripts run.
///
/// It watches the bridge socket (`/__storybridge/ws`): every request sent with a `GUID` is
/// pending until a frame with that `GUID` comes back. `window.__storybridgeShots.settle(limit,
/// timeout)` resolves once the load event has fired, the socket is open (or was refused, or the
/// slide has no client), no request is pending and `document.fonts` is ready; then the document's
/// animations are brought to rest: a finite one jumps to its end (the picture waiting for it would
/// give, without the wait), an endless one is paused at its start, and animations that start as
/// others end are ended in turn for at most `limit` ms. So two runs give the same pixels.
/// Past `timeout` ms it settles anyway and says what was still waiting. The viewer chrome is
/// hidden: the screenshot is of the content.
enum SettleScript {
    static let source = """
        (function () {
          if (window.__storybridgeShots) { return; }
          var pending = {};
          var originalSend = WebSocket.prototype.send;
          function isBridge(socket) { return String(socket.url).indexOf('/__storybridge/ws') >= 0; }
          function watch(socket) {
            if (socket.__storybridgeShotsWatched) { return; }
            socket.__storybridgeShotsWatched = true;
            socket.addEventListener('message', function (event) {
              try {
                var message = JSON.parse(event.data);
                if (message && typeof message.GUID === 'string') { delete pending[message.GUID]; }
              } catch (e) {}
            });
          }
          WebSocket.prototype.send = function (data) {
            try {
              if (isBridge(this)) {
                watch(this);
                var parsed = JSON.parse(data);
                var requests = Array.isArray(parsed) ? parsed : [parsed];
                for (var i = 0; i < requests.length; i++) {
                  var request = requests[i];
                  if (request && typeof request.GUID === 'string' && request.GUID && typeof request.Command === 'string') {
                    pending[request.GUID] = request.Command;
                  }
                }
              }
            } catch (e) {}
            return originalSend.apply(this, arguments);
          };
          function socketSettled() {
            var client = window.__storybridge;
            return !client || !client.state || client.state.connected || !!client.state.refused;
          }
          // Finite animations jump to their end: the picture is the one waiting for them would give,
          // without the wait. Endless ones stop at their start. Animations that others start as
          // they end (animationend handlers) are ended in turn, for at most `limit` ms.
          function endAnimations(limit) {
            var started = performance.now();
            var ended = 0;
            var rounds = 0;
            return new Promise(function (resolve) {
              function check() {
                var running = document.getAnimations().filter(function (animation) {
                  return animation.playState === 'running' || animation.pending;
                });
                if (running.length === 0 || (rounds > 0 && performance.now() - started > limit)) { resolve(ended); return; }
                rounds += 1;
                for (var i = 0; i < running.length; i++) {
                  var animation = running[i];
                  var end = animation.effect ? animation.effect.getComputedTiming().endTime : Infinity;
                  try {
                    if (isFinite(end)) { animation.finish(); } else { animation.pause(); animation.currentTime = 0; }
                  } catch (e) { animation.cancel(); }
                  ended += 1;
                }
                requestAnimationFrame(check);
              }
              check();
            });
          }
          function hideChrome() {
            if (document.getElementById('storybridge-shots-style')) { return; }
            var style = document.createElement('style');
            style.id = 'storybridge-shots-style';
            style.textContent = 'storybridge-chrome{display:none!important}';
            (document.head || document.documentElement).appendChild(style);
          }
          function loaded() {
            return new Promise(function (resolve) {
              if (document.readyState === 'complete') { resolve(); return; }
              window.addEventListener('load', function () { resolve(); });
            });
          }
          window.__storybridgeShots = {
            loaded: loaded,
            settle: function (limit, timeout) {
              var started = performance.now();
              return loaded().then(function () {
                return new Promise(function (resolve) {
                  function check() {
                    var waiting = Object.keys(pending).map(function (id) { return pending[id]; });
                    var quiet = socketSettled() && waiting.length === 0;
                    if (quiet || performance.now() - started >= timeout) {
                      resolve(quiet ? [] : (waiting.length ? waiting : ['bridge socket']));
                      return;
                    }
                    setTimeout(check, 5);
                  }
                  check();
                });
              }).then(function (unanswered) {
                var fonts = document.fonts ? document.fonts.ready : Promise.resolve();
                return fonts.then(function () { return endAnimations(limit); }).then(function (ended) {
                  hideChrome();
                  return { unanswered: unanswered, animationsEnded: ended };
                });
              });
            }
          };
        })();
        """
}
