/*
 * storyclm.js: the StoryCLM content API for presentations, written for storybridge.
 *
 * storybridge serves HTML presentations to an ordinary browser and answers their API calls
 * over a WebSocket. This file is the project's own implementation of the library that such
 * presentations bundle. It defines two globals:
 *
 *   window.StoryCLMBridge  the transport: Invoke, GetQueue, StoryCLMHandler, GetNavigationData
 *   window.StoryCLM        the API namespaces (Presentation, Mediafiles, Map, UI, Sessions,
 *                          CustomEvents, DeepLinking, Tables, Http, System, User, Geolocation)
 *
 * It keeps the public names, argument forms and wire messages of storyclm.js 1.7.6/2.1/2.2, so
 * the same file also runs inside the StoryCLM iOS and Android apps.
 *
 * Transport rule, decided on every call:
 *   - if window.__storybridge exists and has a function `post`, the request object is handed to
 *     window.__storybridge.post(message); the storybridge client injected by the host carries it
 *     over its WebSocket;
 *   - otherwise the legacy "doorbell" is used: the message is queued in the page and a hidden
 *     iframe is pointed at "storyclm:SCLM_QUEUE"; the native app cancels that navigation and
 *     collects the queue with StoryCLMBridge.GetQueue().
 * Either way, answers come back through StoryCLMBridge.StoryCLMHandler(jsonString).
 *
 * Request:  {Command, Data, GUID}. GUID is present only when the caller gave a callback, so
 *           fire-and-forget calls (closePresentation, setSessionComplete, ...) get no answer.
 * Response: {GUID, Status, ErrorCode, ErrorMessage, Data}; API callbacks receive a wrapper
 *           {status, errorCode, errorMessage, data} built from it.
 *
 * Plain ES5, no dependencies, no build step.
 */
(function (window, document) {
    'use strict';

    var DOORBELL_URL = 'storyclm:SCLM_QUEUE';

    function logError(what, error) {
        if (window.console && typeof window.console.error === 'function') {
            window.console.error('storyclm.js: ' + what, error);
        }
    }

    /* ------------------------------------------------------------------------------------ */
    /* Transport: window.StoryCLMBridge                                                      */
    /* ------------------------------------------------------------------------------------ */

    function installBridge() {
        var pending = {};        // GUID -> function(rawResponse)
        var queue = [];          // legacy transport: messages waiting for GetQueue()
        var counter = 0;         // feeds the "GUID_<n>" prefix; the first request gets 1
        var doorbell = null;     // hidden iframe, created on the first legacy send
        var navigationData;      // Data of the getNavigationData answer, once it arrives

        function randomHex(byteCount) {
            var bytes = [], out = '', i;
            var cryptoObj = window.crypto || window.msCrypto;
            if (cryptoObj && typeof cryptoObj.getRandomValues === 'function' && window.Uint8Array) {
                var buffer = new window.Uint8Array(byteCount);
                cryptoObj.getRandomValues(buffer);
                for (i = 0; i < byteCount; i++) { bytes.push(buffer[i]); }
            } else {
                for (i = 0; i < byteCount; i++) { bytes.push(Math.floor(Math.random() * 256)); }
            }
            for (i = 0; i < bytes.length; i++) {
                out += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16);
            }
            return out;
        }

        // 16 random bytes (32 hex characters) drawn once per page: the counter in front makes
        // each GUID unique within the page, the random part sets the page's GUIDs apart from
        // other pages'. Drawing them for every call made garbage on every call for nothing.
        var guidSuffix = null;
        function newGuid() {
            counter += 1;
            if (guidSuffix === null) { guidSuffix = randomHex(16); }
            return 'GUID_' + counter + guidSuffix;
        }

        // The storybridge host injects its client before any content script; checking at call
        // time (not at load) keeps this file working if the client shows up a little later.
        function hostChannel() {
            var channel = window.__storybridge;
            return (channel && typeof channel.post === 'function') ? channel : null;
        }

        function ringDoorbell() {
            if (!doorbell) {
                doorbell = document.createElement('iframe');
                doorbell.style.display = 'none';
                document.documentElement.appendChild(doorbell);
            }
            // Setting the same src again still starts a navigation the native side sees; several
            // invokes in one tick may end up as a single ring, which is fine because GetQueue()
            // hands over everything queued so far.
            doorbell.src = DOORBELL_URL;
        }

        function invoke(command, data, callback) {
            var message = { Command: command, Data: (data === undefined ? {} : data) };
            if (typeof callback === 'function') {
                message.GUID = newGuid();
                pending[message.GUID] = callback;
            }
            var channel = hostChannel();
            if (channel) {
                try {
                    channel.post(message);
                } catch (e) {
                    logError('window.__storybridge.post failed for "' + command + '"', e);
                }
                return;
            }
            queue.push(message);
            ringDoorbell();
        }

        function getQueue() {
            var text = JSON.stringify(queue);
            queue = [];
            return text;
        }

        function deliver(message) {
            if (!message || typeof message !== 'object') { return; }
            if (Array.isArray(message)) {
                for (var i = 0; i < message.length; i++) { deliver(message[i]); }
                return;
            }
            var guid = message.GUID;
            if (!guid) { return; }
            var callback = pending[guid];
            if (typeof callback !== 'function') { return; }
            // Forget it before calling so it can never run twice, even if it throws.
            delete pending[guid];
            try {
                callback(message);
            } catch (e) {
                logError('a callback for "' + guid + '" threw', e);
            }
        }

        // Runs `task` in a task of its own, soon after the current one: a message to a
        // MessageChannel port. Unlike setTimeout(..., 1), which Chromium and WebKit wait at least
        // 1 ms for, it adds no delay; like it, the task never runs inside the caller. Without
        // MessageChannel (very old engines) setTimeout(..., 0) does the same, more slowly.
        var deferred = [];
        var deferralPort = null;
        function runDeferred() {
            var tasks = deferred;
            deferred = [];
            for (var i = 0; i < tasks.length; i++) {
                try { tasks[i](); } catch (e) { logError('a deferred answer failed', e); }
            }
        }
        function defer(task) {
            deferred.push(task);
            if (deferred.length > 1) { return; }
            if (deferralPort === null && typeof window.MessageChannel === 'function') {
                var channel = new window.MessageChannel();
                channel.port1.onmessage = runDeferred;
                deferralPort = channel.port2;
            }
            if (deferralPort) { deferralPort.postMessage(0); } else { setTimeout(runDeferred, 0); }
        }

        // Runs `task` as a microtask: right after the current script, still never inside it.
        // Tasks already waiting for the MessageChannel keep their turn: `task` joins them.
        function deferToMicrotask(task) {
            if (deferred.length > 0 || typeof window.queueMicrotask !== 'function') {
                defer(task);
                return;
            }
            window.queueMicrotask(function () {
                try { task(); } catch (e) { logError('a deferred answer failed', e); }
            });
        }

        function storyCLMHandler(payload, delivery) {
            // Deferred like the original (which waits setTimeout(..., 1)) so the native caller's
            // evaluateJavaScript returns at once and callbacks never run inside it. An answer the
            // storybridge client hands over from its socket (delivery.fromSocket) is called from
            // the socket's message event, which ends when this returns: a microtask is then out of
            // the caller too, without waiting for another task.
            if (!payload) { return; }
            // The usual answer: from the socket, parsed already, nothing deferred before it.
            if (delivery && delivery.fromSocket === true && delivery.message && typeof delivery.message === 'object' &&
                deferred.length === 0 && typeof window.queueMicrotask === 'function') {
                var answer = delivery.message;
                window.queueMicrotask(function () { deliver(answer); });
                return;
            }
            var schedule = (delivery && delivery.fromSocket === true) ? deferToMicrotask : defer;
            // The storybridge client hands over the answer it already parsed (delivery.message),
            // parsed from this very text and not kept by the client: no second parse.
            var parsed = (delivery && delivery.message && typeof delivery.message === 'object') ? delivery.message : null;
            schedule(function () {
                var message = parsed || payload;
                if (!parsed && typeof payload === 'string') {
                    try {
                        message = JSON.parse(payload);
                    } catch (e) {
                        logError('could not parse a response', e);
                        return;
                    }
                }
                deliver(message);
            });
        }

        function getNavigationData() {
            return navigationData;
        }

        // Tells the storybridge client that answers are deferred here, out of its call, and that
        // no timer is started while one is taken (client.js then hands them over directly).
        storyCLMHandler.deliversOutOfCaller = true;

        window.StoryCLMBridge = {
            Invoke: invoke,
            GetQueue: getQueue,
            StoryCLMHandler: storyCLMHandler,
            GetNavigationData: getNavigationData
        };

        // Ask once, at load, for the data handed over by the go/open call that led here.
        invoke('getNavigationData', {}, function (response) {
            navigationData = response ? response.Data : undefined;
        });
    }

    // Like the original, an existing bridge is kept (e.g. when the file is loaded twice).
    if (!(window.StoryCLMBridge && typeof window.StoryCLMBridge.Invoke === 'function')) {
        installBridge();
    }

    /* ------------------------------------------------------------------------------------ */
    /* Callback wrapper and helpers                                                          */
    /* ------------------------------------------------------------------------------------ */

    // What every API callback receives.
    function StoryCLMApiMessage(response) {
        if (!(this instanceof StoryCLMApiMessage)) { return new StoryCLMApiMessage(response); }
        if (response && typeof response === 'object') {
            this.status = response.Status;
            this.errorCode = response.ErrorCode;
            this.errorMessage = response.ErrorMessage;
            this.data = response.Data;
        } else {
            this.status = 'error';
            this.errorCode = -2;
            this.errorMessage = 'Data is empty';
            this.data = {};
        }
    }

    function isFunction(value) { return typeof value === 'function'; }
    function isString(value) { return typeof value === 'string'; }
    function isMissing(value) { return value === undefined || value === null; }
    function isPlainObject(value) {
        return value !== null && typeof value === 'object' && !Array.isArray(value);
    }

    // Sends through whatever bridge is installed now; wraps the answer for the callback.
    function send(command, data, callback) {
        if (!isFunction(callback)) {
            window.StoryCLMBridge.Invoke(command, data);
            return;
        }
        window.StoryCLMBridge.Invoke(command, data, function (response) {
            callback(new StoryCLMApiMessage(response));
        });
    }

    // Bad arguments: nothing is sent; the callback (if any) learns why, asynchronously like a
    // real answer would.
    function badParameters(callback, reason) {
        if (!isFunction(callback)) { return; }
        var message = new StoryCLMApiMessage({
            Status: 'error',
            ErrorCode: -3,
            ErrorMessage: 'Error Parameters' + (reason ? ': ' + reason : ''),
            Data: {}
        });
        setTimeout(function () {
            try {
                callback(message);
            } catch (e) {
                logError('a callback threw', e);
            }
        }, 0);
    }

    // A method that sends {} and optionally takes a callback.
    function simple(command) {
        return function (callback) {
            send(command, {}, callback);
        };
    }

    // Pulls a trailing callback off an argument list; returns {args, callback}.
    function splitCallback(argumentsObject, from) {
        var args = Array.prototype.slice.call(argumentsObject, from);
        while (args.length && args[args.length - 1] === undefined) { args.pop(); }
        var callback;
        if (args.length && isFunction(args[args.length - 1])) { callback = args.pop(); }
        return { args: args, callback: callback };
    }

    /* ------------------------------------------------------------------------------------ */
    /* Base64 over UTF-8 (for HTTP bodies)                                                   */
    /* ------------------------------------------------------------------------------------ */

    var B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

    function utf8Bytes(text) {
        var bytes = [];
        for (var i = 0; i < text.length; i++) {
            var code = text.charCodeAt(i);
            // Join a surrogate pair into one code point; a lone surrogate becomes U+FFFD.
            if (code >= 0xD800 && code <= 0xDBFF) {
                var next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
                if (next >= 0xDC00 && next <= 0xDFFF) {
                    code = 0x10000 + ((code - 0xD800) << 10) + (next - 0xDC00);
                    i++;
                } else {
                    code = 0xFFFD;
                }
            } else if (code >= 0xDC00 && code <= 0xDFFF) {
                code = 0xFFFD;
            }
            if (code < 0x80) {
                bytes.push(code);
            } else if (code < 0x800) {
                bytes.push(0xC0 | (code >> 6), 0x80 | (code & 0x3F));
            } else if (code < 0x10000) {
                bytes.push(0xE0 | (code >> 12), 0x80 | ((code >> 6) & 0x3F), 0x80 | (code & 0x3F));
            } else {
                bytes.push(0xF0 | (code >> 18), 0x80 | ((code >> 12) & 0x3F),
                    0x80 | ((code >> 6) & 0x3F), 0x80 | (code & 0x3F));
            }
        }
        return bytes;
    }

    function bytesToBase64(bytes) {
        var out = '';
        for (var i = 0; i < bytes.length; i += 3) {
            var a = bytes[i], b = bytes[i + 1], c = bytes[i + 2];
            out += B64.charAt(a >> 2);
            out += B64.charAt(((a & 3) << 4) | (b === undefined ? 0 : b >> 4));
            out += b === undefined ? '=' : B64.charAt(((b & 15) << 2) | (c === undefined ? 0 : c >> 6));
            out += c === undefined ? '=' : B64.charAt(c & 63);
        }
        return out;
    }

    function base64ToBytes(text) {
        var clean = String(text).replace(/[^A-Za-z0-9+\/]/g, '');
        var bytes = [], buffer = 0, bits = 0;
        for (var i = 0; i < clean.length; i++) {
            buffer = (buffer << 6) | B64.indexOf(clean.charAt(i));
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                bytes.push((buffer >> bits) & 0xFF);
            }
        }
        return bytes;
    }

    function bytesToUtf8(bytes) {
        var out = '', i = 0;
        while (i < bytes.length) {
            var b = bytes[i++], code;
            if (b < 0x80) {
                code = b;
            } else if (b >= 0xC0 && b < 0xE0) {
                code = ((b & 0x1F) << 6) | (bytes[i++] & 0x3F);
            } else if (b >= 0xE0 && b < 0xF0) {
                code = ((b & 0x0F) << 12) | ((bytes[i++] & 0x3F) << 6) | (bytes[i++] & 0x3F);
            } else if (b >= 0xF0) {
                code = ((b & 0x07) << 18) | ((bytes[i++] & 0x3F) << 12) |
                    ((bytes[i++] & 0x3F) << 6) | (bytes[i++] & 0x3F);
            } else {
                code = 0xFFFD;
            }
            if (code > 0xFFFF) {
                code -= 0x10000;
                out += String.fromCharCode(0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF));
            } else {
                out += String.fromCharCode(code);
            }
        }
        return out;
    }

    function toBase64(text) { return bytesToBase64(utf8Bytes(String(text))); }
    function fromBase64(text) { return bytesToUtf8(base64ToBytes(text)); }

    function looksLikeBase64(text) {
        return text.length % 4 === 0 && /^[A-Za-z0-9+\/]*={0,2}$/.test(text);
    }

    // The wire wants Base64. The original library passed bodies through untouched (its docs
    // tell content to encode), so a string that already is Base64 is sent as it is and old
    // content keeps working; any other string is encoded as UTF-8 first. Objects and arrays
    // are sent as JSON text. Use StoryCLM.Http.ToBase64 to force encoding of a short string
    // that happens to look like Base64 (e.g. "test").
    function encodeBody(body) {
        if (isMissing(body)) { return ''; }
        if (isString(body)) { return looksLikeBase64(body) ? body : toBase64(body); }
        if (typeof body === 'object') { return toBase64(JSON.stringify(body)); }
        return toBase64(String(body));
    }

    /* ------------------------------------------------------------------------------------ */
    /* TablesQuery (global, as in the original)                                              */
    /* ------------------------------------------------------------------------------------ */

    function TablesQuery() {
        if (!(this instanceof TablesQuery)) { return new TablesQuery(); }
        this.skip = 0;
        this.take = 100;
        this.query = '';
        this.sort = -1;          // -1 none, 0 ascending, 1 descending
        this.sortfield = '';
    }
    TablesQuery.prototype.Query = function (query) { this.query = query; return this; };
    TablesQuery.prototype.Skip = function (count) { this.skip = count; return this; };
    TablesQuery.prototype.Take = function (count) { this.take = count; return this; };
    TablesQuery.prototype.Sort = function (type, field) {
        this.sort = type;
        this.sortfield = field;
        return this;
    };

    /* ------------------------------------------------------------------------------------ */
    /* The API: window.StoryCLM                                                              */
    /* ------------------------------------------------------------------------------------ */

    var StoryCLM = {};

    // Go(name[, data], callback): show another slide of this presentation.
    StoryCLM.Go = function (name, data, callback) {
        if (isFunction(data) && callback === undefined) { callback = data; data = undefined; }
        if (!isString(name)) { badParameters(callback, 'slide name must be a string'); return; }
        send('go', { slideName: name, data: isMissing(data) ? {} : data }, callback);
    };

    // SendCommand(command[, data], callback): any command, e.g. one a host module adds.
    StoryCLM.SendCommand = function (command, data, callback) {
        if (isFunction(data) && callback === undefined) { callback = data; data = undefined; }
        if (!isString(command) || !command) { badParameters(callback, 'command must be a string'); return; }
        send(command, isMissing(data) ? {} : data, callback);
    };

    // Synchronous: whatever the host put into window.StoryCLMNavigationData.
    StoryCLM.GetNavigationData = function () {
        return window.StoryCLMNavigationData || {};
    };

    StoryCLM.System = { GetInfo: simple('getAppInfo') };
    StoryCLM.User = { Get: simple('getUserInfo') };
    StoryCLM.Geolocation = { Get: simple('getGeoLocationInfo') };

    /* Media files ------------------------------------------------------------------------ */

    // OpenMediaFile(name[, presId], callback); presId -1 (the default) = this presentation.
    function openMediaFile(name, id, callback) {
        if (isFunction(id) && callback === undefined) { callback = id; id = undefined; }
        if (!isString(name)) { badParameters(callback, 'file name must be a string'); return; }
        if (!isMissing(id) && typeof id !== 'number') {
            badParameters(callback, 'presentation id must be a number');
            return;
        }
        // The original turns every falsy id (also 0) into -1.
        send('openMediaFile', { id: id || -1, name: name }, callback);
    }

    StoryCLM.Mediafiles = {
        GetMediaFiles: simple('getMediaFiles'),
        OpenMediaFile: openMediaFile,
        OpenMediaLibrary: simple('openMediaLibrary'),
        HideMediaLibraryBtn: simple('hideMediaLibraryBtn'),
        ShowMediaLibraryBtn: simple('showMediaLibraryBtn')
    };
    // 2.x spells it "Mediafiles"; accept the other spelling too.
    StoryCLM.MediaFiles = StoryCLM.Mediafiles;

    /* Map and viewer chrome ------------------------------------------------------------- */

    StoryCLM.Map = {
        GetMap: simple('getMap'),
        HideMapBtn: simple('hideMapBtn'),
        ShowMapBtn: simple('showMapBtn')
    };

    StoryCLM.UI = {
        HideCloseBtn: simple('hideCloseBtn'),
        HideSystemBtns: simple('hideSystemBtns'),
        HideMapBtn: simple('hideMapBtn'),
        ShowMapBtn: simple('showMapBtn'),
        // 1.7.6 kept the media library controls here.
        OpenMediaLibrary: simple('openMediaLibrary'),
        HideMediaLibraryBtn: simple('hideMediaLibraryBtn'),
        ShowMediaLibraryBtn: simple('showMediaLibraryBtn')
    };

    /* Presentation ---------------------------------------------------------------------- */

    // Open(presId[, slideName][, data], callback). Empty slideName means the start slide.
    function openPresentation(presId) {
        var split = splitCallback(arguments, 1);
        var args = split.args, callback = split.callback;
        var slideName, data;
        if (typeof presId !== 'number') {
            badParameters(callback, 'presentation id must be a number');
            return;
        }
        if (args.length === 1) {
            if (isString(args[0]) || isMissing(args[0])) {
                slideName = args[0];
            } else if (isPlainObject(args[0])) {
                data = args[0];                     // Open(id, data, callback)
            } else {
                badParameters(callback, 'slide name must be a string');
                return;
            }
        } else if (args.length >= 2) {
            slideName = args[0];
            data = args[1];
            if (!isMissing(slideName) && !isString(slideName)) {
                badParameters(callback, 'slide name must be a string');
                return;
            }
        }
        send('open', {
            presId: presId,
            slideName: slideName || '',
            data: isMissing(data) ? {} : data
        }, callback);
    }

    // Close(mode): 0 ask the user, 1 close and save, 2 close without saving. No answer comes.
    function closePresentation(mode) {
        if (typeof mode !== 'number' || mode % 1 !== 0 || mode < 0 || mode > 2) { mode = 0; }
        send('closePresentation', { mode: mode });
    }

    StoryCLM.Presentation = {
        Open: openPresentation,
        Close: closePresentation,
        GetInfo: simple('getPresentationInfo'),
        GetPreviousSlide: simple('getPreviousSlide'),
        GetNextSlide: simple('getNextSlide'),
        GetCurrentSlideName: simple('getCurrentSlideName'),
        GetBackForwardList: simple('getBackForwardList'),
        GetBackForwardPresList: simple('getBackForwardPresList'),
        GetPresentations: simple('getPresentations'),
        // 1.7.6 names, kept for old content.
        GetMap: StoryCLM.Map.GetMap,
        GetMediaFiles: StoryCLM.Mediafiles.GetMediaFiles,
        OpenMediaFile: openMediaFile,
        SetComplete: function () { send('setSessionComplete', {}); }
    };

    /* Sessions -------------------------------------------------------------------------- */

    StoryCLM.Sessions = {
        Get: simple('getSessions'),
        GetCurrent: simple('getCurrentSessions'),
        GetById: function (id, callback) {
            if (isMissing(id) || isFunction(id)) {
                badParameters(isFunction(id) ? id : callback, 'session id is required');
                return;
            }
            send('getSessionById', { id: id }, callback);
        },
        // Marks the current session complete; fire-and-forget.
        SetComplete: function () { send('setSessionComplete', {}); },
        // 1.7.6: push a changed session object.
        Update: function (session, callback) {
            if (isMissing(session) || isFunction(session)) {
                badParameters(isFunction(session) ? session : callback, 'session is required');
                return;
            }
            send('sessionupdate', session, callback);
        }
    };

    /* Custom events --------------------------------------------------------------------- */

    // Values travel as strings; objects are sent as JSON text rather than "[object Object]".
    function stringValue(value) {
        if (value !== null && typeof value === 'object') {
            try { return JSON.stringify(value); } catch (e) { /* fall through */ }
        }
        return String(value);
    }

    StoryCLM.CustomEvents = {
        // Set(key, value[, callback]); without a callback nothing is answered.
        Set: function (key, value, callback) {
            if (!isString(key)) { badParameters(callback, 'key must be a string'); return; }
            send('setCustomEvent', { key: key, value: stringValue(value) }, callback);
        },
        Get: function (key, callback) {
            if (!isString(key)) { badParameters(callback, 'key must be a string'); return; }
            send('getCustomEventByKey', { key: key }, callback);
        },
        Delete: function (key, callback) {
            if (!isString(key)) { badParameters(callback, 'key must be a string'); return; }
            send('deleteCustomEventByKey', { key: key }, callback);
        },
        // GetObject(sessionId, contentId, callback); empty strings mean the current ones.
        GetObject: function (sessionId, contentId, callback) {
            var split = splitCallback(arguments, 0);
            var args = split.args;
            callback = split.callback;
            sessionId = isMissing(args[0]) ? '' : args[0];
            contentId = isMissing(args[1]) ? '' : args[1];
            if (!isString(sessionId) || !isString(contentId)) {
                badParameters(callback, 'sessionId and contentId must be strings');
                return;
            }
            send('getCustomEventsObject', { sessionId: sessionId, contentId: contentId }, callback);
        }
    };

    /* Deep linking (2.2) ---------------------------------------------------------------- */

    StoryCLM.DeepLinking = {
        Inbound: {
            GetData: simple('getDeepLinkingInboundData')
        },
        Outbound: {
            GetData: simple('getDeepLinkingOutboundData'),
            SetScheme: function (scheme, callback) {
                if (!isString(scheme)) { badParameters(callback, 'scheme must be a string'); return; }
                send('setDeepLinkingOutboundScheme', { scheme: scheme }, callback);
            },
            Set: function (key, value, callback) {
                if (!isString(key)) { badParameters(callback, 'key must be a string'); return; }
                send('setDeepLinkingOutboundParameter', { key: key, value: stringValue(value) }, callback);
            },
            Get: function (key, callback) {
                if (!isString(key)) { badParameters(callback, 'key must be a string'); return; }
                send('getDeepLinkingOutboundParameter', { key: key }, callback);
            },
            Delete: function (key, callback) {
                if (!isString(key)) { badParameters(callback, 'key must be a string'); return; }
                send('deleteDeepLinkingOutboundParameter', { key: key }, callback);
            }
        }
    };

    /* Tables ---------------------------------------------------------------------------- */

    // Single entry vs. array picks the singular or plural command.
    function entryCommand(single, plural) {
        return function (tableId, entry, callback) {
            if (typeof tableId !== 'number' || isMissing(entry) || isFunction(entry)) {
                badParameters(isFunction(entry) ? entry : callback, 'tableId (number) and entry are required');
                return;
            }
            var data = { tableId: tableId };
            if (Array.isArray(entry)) {
                data.entries = entry;
                send(plural, data, callback);
            } else {
                data.entry = entry;
                send(single, data, callback);
            }
        };
    }

    StoryCLM.Tables = {
        Get: simple('tables'),
        // Find(tableId, id | [ids] | TablesQuery, callback)
        Find: function (tableId, query, callback) {
            if (typeof tableId !== 'number' || isMissing(query) || isFunction(query)) {
                badParameters(isFunction(query) ? query : callback, 'tableId (number) and a query are required');
                return;
            }
            if (isString(query)) {
                send('findById', { tableId: tableId, id: query }, callback);
            } else if (Array.isArray(query)) {
                send('findByIds', { tableId: tableId, ids: query }, callback);
            } else if (typeof query === 'object') {
                // The original sent the query fields alone; tableId is added so a host can
                // tell which table is meant.
                var data = {}, key;
                for (key in query) {
                    if (Object.prototype.hasOwnProperty.call(query, key)) { data[key] = query[key]; }
                }
                data.tableId = tableId;
                send('findByQuery', data, callback);
            } else {
                badParameters(callback, 'unsupported query');
            }
        },
        Insert: entryCommand('insertEntry', 'insertEntries'),
        Update: entryCommand('updateEntry', 'updateEntries'),
        // Delete(tableId, id | [ids], callback)
        Delete: function (tableId, id, callback) {
            if (typeof tableId !== 'number' || !(isString(id) || Array.isArray(id))) {
                badParameters(isFunction(id) ? id : callback, 'tableId (number) and id(s) are required');
                return;
            }
            if (Array.isArray(id)) {
                send('deleteByIds', { tableId: tableId, ids: id }, callback);
            } else {
                send('deleteById', { tableId: tableId, id: id }, callback);
            }
        },
        // Count(tableId[, query], callback)
        Count: function (tableId, query, callback) {
            if (isFunction(query) && callback === undefined) { callback = query; query = undefined; }
            if (typeof tableId !== 'number') { badParameters(callback, 'tableId must be a number'); return; }
            if (isMissing(query)) {
                send('count', { tableId: tableId }, callback);
            } else {
                send('countByQuery', { tableId: tableId, query: query }, callback);
            }
        }
    };

    /* HTTP through the host ------------------------------------------------------------- */

    // Get/Delete(url[, headers], callback)
    function bodiless(command) {
        return function (url, headers, callback) {
            if (isFunction(headers) && callback === undefined) { callback = headers; headers = undefined; }
            if (!isString(url) || !url) { badParameters(callback, 'url must be a string'); return; }
            var data = { url: url };
            if (isPlainObject(headers)) { data.headers = headers; }
            send(command, data, callback);
        };
    }

    // Post/Put(url[, body][, headers], callback); (url, headersObject, callback) also works.
    function withBody(command) {
        return function (url) {
            var split = splitCallback(arguments, 1);
            var args = split.args, callback = split.callback;
            var body, headers;
            if (!isString(url) || !url) { badParameters(callback, 'url must be a string'); return; }
            if (args.length === 1) {
                if (isPlainObject(args[0])) { headers = args[0]; } else { body = args[0]; }
            } else if (args.length >= 2) {
                body = args[0];
                headers = args[1];
            }
            if (!isMissing(headers) && !isPlainObject(headers)) {
                badParameters(callback, 'headers must be an object');
                return;
            }
            send(command, { url: url, body: encodeBody(body), headers: headers || {} }, callback);
        };
    }

    StoryCLM.Http = {
        Get: bodiless('httpget'),
        Delete: bodiless('httpdelete'),
        Post: withBody('httppost'),
        Put: withBody('httpput'),
        // Helpers for bodies: UTF-8 text <-> Base64.
        ToBase64: toBase64,
        FromBase64: fromBase64
    };

    window.StoryCLM = StoryCLM;
    window.StoryCLMApiMessage = StoryCLMApiMessage;
    window.TablesQuery = TablesQuery;
})(window, document);
