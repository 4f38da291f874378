/*
 * demo.js: wires the buttons of the storybridge demo presentation.
 *
 * Contract the end-to-end tests rely on:
 *   - a button id="btn-<command>" makes the API call whose wire Command is <command>;
 *   - its callback writes JSON.stringify(wrapper) into id="out-<command>" and sets
 *     data-done="1" there (cleared again when the button is pressed anew);
 *   - id="nav-sync" shows JSON.stringify(StoryCLM.GetNavigationData()) at load.
 * Only the buttons present on the current slide are wired.
 */
(function () {
    'use strict';

    var S = window.StoryCLM;

    function byId(id) { return document.getElementById(id); }

    function valueOf(id, fallback) {
        var el = byId(id);
        return el && el.value !== '' ? el.value : fallback;
    }

    function reset(outId, text) {
        var out = byId(outId);
        if (!out) { return; }
        out.removeAttribute('data-done');
        out.removeAttribute('data-sent');
        out.removeAttribute('data-error');
        out.textContent = text;
    }

    // The callback handed to the API: shows the wrapper and marks the output as done.
    function writer(outId) {
        return function (wrapper) {
            var out = byId(outId);
            if (!out) { return; }
            out.textContent = JSON.stringify(wrapper);
            out.setAttribute('data-done', '1');
        };
    }

    // For fire-and-forget calls, which never get an answer.
    function noteSent(outId, what) {
        var out = byId(outId);
        if (!out) { return; }
        out.textContent = 'sent ' + what + ' (no answer expected)';
        out.setAttribute('data-sent', '1');
    }

    function onClick(buttonId, handler) {
        var button = byId(buttonId);
        if (button) { button.addEventListener('click', handler); }
    }

    // Wires btn-<name> to call(callback) with the callback writing into out-<name>.
    function wire(name, call) {
        onClick('btn-' + name, function () {
            reset('out-' + name, 'waiting\u2026');
            call(writer('out-' + name));
        });
    }

    function parseJson(text) {
        try { return { ok: true, value: JSON.parse(text) }; } catch (e) { return { ok: false, error: String(e) }; }
    }

    /* Base ------------------------------------------------------------------------------ */

    wire('getAppInfo', function (cb) { S.System.GetInfo(cb); });
    wire('getUserInfo', function (cb) { S.User.Get(cb); });
    wire('getGeoLocationInfo', function (cb) { S.Geolocation.Get(cb); });
    // No dedicated method: ask the bridge command directly.
    wire('getNavigationData', function (cb) { S.SendCommand('getNavigationData', {}, cb); });

    // btn-go carries its target slide and payload in data-target / data-payload.
    wire('go', function (cb) {
        var button = byId('btn-go');
        var payload = parseJson(button.getAttribute('data-payload') || '{}');
        S.Go(button.getAttribute('data-target'), payload.ok ? payload.value : {}, cb);
    });
    wire('go-custom', function (cb) { S.Go(valueOf('go-target', ''), {}, cb); });

    /* Presentation and map --------------------------------------------------------------- */

    wire('getCurrentSlideName', function (cb) { S.Presentation.GetCurrentSlideName(cb); });
    wire('getPreviousSlide', function (cb) { S.Presentation.GetPreviousSlide(cb); });
    wire('getNextSlide', function (cb) { S.Presentation.GetNextSlide(cb); });
    wire('getBackForwardList', function (cb) { S.Presentation.GetBackForwardList(cb); });
    wire('getBackForwardPresList', function (cb) { S.Presentation.GetBackForwardPresList(cb); });
    wire('getPresentationInfo', function (cb) { S.Presentation.GetInfo(cb); });
    wire('getPresentations', function (cb) { S.Presentation.GetPresentations(cb); });
    // Opens the presentation whose id is typed in #open-target, at its start slide.
    wire('open', function (cb) {
        S.Presentation.Open(parseInt(valueOf('open-target', '2'), 10), '', { from: 'demo' }, cb);
    });
    wire('getMap', function (cb) { S.Map.GetMap(cb); });

    /* Media files ------------------------------------------------------------------------ */

    wire('getMediaFiles', function (cb) { S.Mediafiles.GetMediaFiles(cb); });
    wire('openMediaFile', function (cb) { S.Mediafiles.OpenMediaFile('brochure.pdf', cb); });
    wire('openMediaFile-wav', function (cb) { S.Mediafiles.OpenMediaFile('chime.wav', -1, cb); });
    wire('openMediaLibrary', function (cb) { S.Mediafiles.OpenMediaLibrary(cb); });

    /* Viewer chrome ---------------------------------------------------------------------- */

    wire('hideCloseBtn', function (cb) { S.UI.HideCloseBtn(cb); });
    wire('hideSystemBtns', function (cb) { S.UI.HideSystemBtns(cb); });
    wire('hideMapBtn', function (cb) { S.Map.HideMapBtn(cb); });
    wire('showMapBtn', function (cb) { S.Map.ShowMapBtn(cb); });
    wire('hideMediaLibraryBtn', function (cb) { S.Mediafiles.HideMediaLibraryBtn(cb); });
    wire('showMediaLibraryBtn', function (cb) { S.Mediafiles.ShowMediaLibraryBtn(cb); });

    /* Custom events and sessions --------------------------------------------------------- */

    wire('setCustomEvent', function (cb) {
        S.CustomEvents.Set(valueOf('ce-key', 'demo-key'), valueOf('ce-value', ''), cb);
    });
    wire('getCustomEventByKey', function (cb) { S.CustomEvents.Get(valueOf('ce-key', 'demo-key'), cb); });
    wire('deleteCustomEventByKey', function (cb) { S.CustomEvents.Delete(valueOf('ce-key', 'demo-key'), cb); });
    wire('getCustomEventsObject', function (cb) { S.CustomEvents.GetObject('', '', cb); });
    wire('getSessions', function (cb) { S.Sessions.Get(cb); });
    wire('getCurrentSessions', function (cb) { S.Sessions.GetCurrent(cb); });

    /* Fire-and-forget ---------------------------------------------------------------------- */

    [0, 1, 2].forEach(function (mode) {
        onClick('btn-closePresentation-' + mode, function () {
            S.Presentation.Close(mode);
            noteSent('out-closePresentation', 'closePresentation {mode: ' + mode + '}');
        });
    });
    onClick('btn-setSessionComplete', function () {
        S.Sessions.SetComplete();
        noteSent('out-setSessionComplete', 'setSessionComplete');
    });

    /* Any command ------------------------------------------------------------------------- */

    onClick('btn-sendCommand', function () {
        var data = parseJson(valueOf('custom-data', '{}'));
        if (!data.ok) {
            reset('out-sendCommand', 'custom data is not JSON: ' + data.error);
            byId('out-sendCommand').setAttribute('data-error', '1');
            return;
        }
        reset('out-sendCommand', 'waiting\u2026');
        S.SendCommand(valueOf('custom-command', ''), data.value, writer('out-sendCommand'));
    });

    /* Page furniture ------------------------------------------------------------------------ */

    var navSync = byId('nav-sync');
    if (navSync) { navSync.textContent = JSON.stringify(S.GetNavigationData()); }

    var transport = byId('transport');
    if (transport) {
        var host = window.__storybridge;
        transport.textContent = host && typeof host.post === 'function'
            ? 'storybridge (WebSocket)' : 'legacy doorbell (native app)';
    }

    // Arrow keys follow the swipe meta tags, like a swipe would in the apps.
    function swipeTarget(name) {
        var meta = document.querySelector('meta[name="' + name + '"]');
        return meta ? meta.getAttribute('content') : '';
    }
    document.addEventListener('keydown', function (event) {
        var tag = event.target && event.target.tagName;
        if (tag === 'INPUT' || tag === 'TEXTAREA') { return; }
        var target = event.key === 'ArrowRight' ? swipeTarget('clm-swipe-next')
            : event.key === 'ArrowLeft' ? swipeTarget('clm-swipe-previous') : '';
        if (target) { window.location.href = target; }
    });
})();
