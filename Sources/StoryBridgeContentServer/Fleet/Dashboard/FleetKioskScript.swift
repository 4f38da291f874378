/// `/fleet/static/kiosk.js` (docs/design/FLEET.md §6), the kiosk page's script:
///
/// - reloads the plot every minute;
/// - the "Screenshot" button: `POST /fleet/kiosks/{id}/screenshot` with the session's CSRF token
///   (`X-CSRF-Token`, from the page's `data-csrf`), a progress text while it waits, then the stored
///   PNG (`screenshot.png?t=…`, so the browser does not show an older one) with when the kiosk
///   took it and its size; on 409 (the kiosk is not connected, or no `storybridge kiosk` runs
///   beside its serve), 504 (no answer within 5 s), 502 (the kiosk's failure) or any other status
///   a message saying so with the hub's reason;
/// - keeps "plays now", the kiosk browser's figures and the last screenshot live from
///   `EventSource('/fleet/events?kiosk=ID')` (a screenshot someone else took shows up too), and
///   goes to the login form when the stream says `logout`.
///
/// Text from the kiosk or the hub goes in with `textContent` only. It sets `window.__kioskReady`
/// once the stream's snapshot is applied.
enum FleetKioskScript {
    /// The script's text.
    static let source = #"""
        (function () {
          'use strict';
          var plot = document.getElementById('plot');
          if (plot) {
            var base = plot.getAttribute('src');
            setInterval(function () { plot.src = base + '?at=' + Date.now(); }, 60000);
          }
          var main = document.getElementById('kiosk');
          if (!main || !main.dataset.kiosk) { return; }
          var id = main.dataset.kiosk;
          var csrf = main.dataset.csrf || '';
          var shownAt = main.dataset.screenshotAt || '';
          var button = document.getElementById('screenshot-button');
          var status = document.getElementById('screenshot-status');
          var image = document.getElementById('screenshot');
          var taken = document.getElementById('screenshot-taken');
          var busy = false;
          \#(FleetScript.ageFunction)
          function say(text, state) {
            status.textContent = text;
            status.dataset.state = state;
          }
          function showPicture(url, done) {
            image.onload = function () {
              image.width = Math.min(image.naturalWidth, 720);
              image.hidden = false;
              if (done) { done(); }
            };
            image.onerror = function () { if (done) { done('the picture could not be loaded'); } };
            image.src = url + '?t=' + Date.now();
          }
          function failure(code, error) {
            var reason = error ? ': ' + error : '';
            if (code === 409) { return 'No screenshot (409): the kiosk is not connected to the hub, or no storybridge kiosk runs beside its serve' + reason; }
            if (code === 504) { return 'No screenshot (504): the kiosk did not answer within 5 s' + reason; }
            if (code === 502) { return 'No screenshot (502): the kiosk could not take it' + reason; }
            if (code === 401 || code === 403) { return 'No screenshot (' + code + '): sign in again or reload the page' + reason; }
            return 'No screenshot (' + code + ')' + reason;
          }
          if (button && status && image && taken) {
            button.addEventListener('click', function () {
              if (busy) { return; }
              busy = true;
              button.disabled = true;
              say('Asking the kiosk for a screenshot…', 'pending');
              fetch('/fleet/kiosks/' + encodeURIComponent(id) + '/screenshot', {
                method: 'POST', credentials: 'same-origin', headers: { 'X-CSRF-Token': csrf }
              }).then(function (response) {
                return response.json().catch(function () { return {}; }).then(function (body) {
                  return { code: response.status, body: body };
                });
              }).then(function (answer) {
                if (answer.code !== 200) {
                  say(failure(answer.code, answer.body.error), 'error');
                  return;
                }
                var body = answer.body;
                shownAt = body.receivedAt || shownAt;
                say('Loading the picture…', 'pending');
                return new Promise(function (resolve) {
                  showPicture(body.url, function (problem) {
                    if (problem) {
                      say('No screenshot: ' + problem, 'error');
                    } else {
                      taken.textContent = 'Taken ' + body.takenAt + " by the kiosk's clock · " + body.width + '×' + body.height;
                      say('Done.', 'done');
                    }
                    resolve();
                  });
                });
              }).catch(function (error) {
                say('No screenshot: the hub did not answer (' + error + ')', 'error');
              }).then(function () {
                busy = false;
                button.disabled = false;
              });
            });
          }
          function playing(s) {
            if (!s) { return 'Now: not reported (no schedule, or no beat yet)'; }
            var what = s.presentation === null || s.presentation === undefined ? 'nothing switched'
              : 'presentation ' + s.presentation + (s.slide ? ', slide ' + s.slide : '');
            var missing = s.installed === false ? ' (not installed on the kiosk)' : '';
            return 'Now: ' + what + missing + ' (' + s.source + ')' + (s.until ? ' until ' + s.until : '');
          }
          function setText(elementId, text) {
            var element = document.getElementById(elementId);
            if (element) { element.textContent = text; }
          }
          function apply(k) {
            setText('playing', playing(k.schedule));
            var section = document.getElementById('kiosk-browser');
            if (section && k.kiosk) {
              var b = k.kiosk;
              setText('kiosk-attached', b.attached ? 'yes' : 'no');
              setText('kiosk-mode', b.mode || '—');
              setText('kiosk-restarts', String(b.browserRestarts));
              setText('idle-resets', String(b.idleResets));
              setText('last-input', b.lastInputSecondsAgo === null || b.lastInputSecondsAgo === undefined
                ? 'none since the kiosk started' : age(b.lastInputSecondsAgo) + ' before the last beat');
              section.hidden = false;
            }
            if (k.lastScreenshotAt && k.lastScreenshotAt !== shownAt && !busy && image && taken) {
              shownAt = k.lastScreenshotAt;
              showPicture('/fleet/kiosks/' + encodeURIComponent(id) + '/screenshot.png', function (problem) {
                if (!problem) { taken.textContent = 'Stored by the hub at ' + k.lastScreenshotAt; }
              });
            }
          }
          var source = new EventSource('/fleet/events?kiosk=' + encodeURIComponent(id));
          function received(event) {
            JSON.parse(event.data).kiosks.forEach(function (k) { if (k.id === id) { apply(k); } });
          }
          source.addEventListener('snapshot', function (event) {
            received(event);
            window.__kioskReady = true;
          });
          source.addEventListener('rows', received);
          source.addEventListener('logout', function () {
            source.close();
            location.href = '/fleet/login';
          });
        })();
        """#
}
