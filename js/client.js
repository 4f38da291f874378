/*
 * storybridge client: injected by the storybridge host into every slide, ahead of any content
 * script. It replaces the native side of a StoryCLM WebView app:
 *
 *  - opens a WebSocket to the host (/__storybridge/ws) and keeps it open while the slide is shown;
 *  - turns the legacy doorbell of a bundled storyclm.js (an iframe whose src is set to
 *    "storyclm:SCLM_QUEUE") into a call of StoryCLMBridge.GetQueue() and sends the drained
 *    messages over the socket;
 *  - offers window.__storybridge.post(message) to storybridge's own storyclm.js, which then skips
 *    the doorbell altogether;
 *  - hands every response to StoryCLMBridge.StoryCLMHandler(<json string>), exactly as the apps do;
 *  - queues what the page sends before the socket is open;
 *  - sets window.StoryCLMNavigationData before content scripts run;
 *  - acts on host events ("navigate", ...) and re-dispatches each as a DOM event
 *    "storybridge:<name>" on window;
 *  - keeps a viewer id in sessionStorage so the host recognises this tab across slide loads.
 *
 * Plain ES5, no dependencies.
 */
(function () {
  'use strict';
  if (window.__storybridge) { return; }

  var script = document.currentScript || document.querySelector('script[data-storybridge]');
  var config = {
    presentation: script ? script.getAttribute('data-presentation') : '',
    slide: script ? script.getAttribute('data-slide') : '',
    token: script ? script.getAttribute('data-token') : '',
    pageAnswers: script ? String(script.getAttribute('data-page-answers') || '').split(' ') : [],
    earlyAnswers: script ? String(script.getAttribute('data-early-answers') || '').split(' ').filter(Boolean) : []
  };
  var VIEWER_KEY = 'storybridge.viewer';
  var NAVIGATION_KEY = 'storybridge.navigation';
  var RELOAD_KEY = 'storybridge.reload';

  // ---- storage that survives slide loads in this tab (falls back to memory) ----
  var memory = {};
  function load(key) {
    try { return window.sessionStorage.getItem(key); } catch (e) { return memory[key] || null; }
  }
  function save(key, value) {
    try {
      if (value === null) { window.sessionStorage.removeItem(key); } else { window.sessionStorage.setItem(key, value); }
    } catch (e) {
      if (value === null) { delete memory[key]; } else { memory[key] = value; }
    }
  }
  function randomId() {
    var bytes = new Uint8Array(16);
    (window.crypto || window.msCrypto).getRandomValues(bytes);
    var hex = '';
    for (var i = 0; i < bytes.length; i++) { hex += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16); }
    return hex;
  }

  var viewerId = load(VIEWER_KEY);
  if (!viewerId) { viewerId = randomId(); save(VIEWER_KEY, viewerId); }
  var pageLoad = randomId();

  // ---- a live reload (the presentation's files changed) continues the same page load ----
  // The host then sees a reconnect, not a new visit: no extra slide view, no history entry, and
  // the slide keeps the navigation data it was opened with.
  var reloaded = null;
  try { reloaded = JSON.parse(load(RELOAD_KEY) || 'null'); } catch (e) { reloaded = null; }
  save(RELOAD_KEY, null);
  if (reloaded && String(reloaded.presentation) === String(config.presentation) && reloaded.slide === config.slide &&
      typeof reloaded.load === 'string') {
    pageLoad = reloaded.load;
  } else {
    reloaded = null;
  }

  // ---- navigation data handed over by the go/open that led to this slide ----
  var navigationData = {};
  var pendingNavigation = null;
  try { pendingNavigation = JSON.parse(load(NAVIGATION_KEY) || 'null'); } catch (e) { pendingNavigation = null; }
  save(NAVIGATION_KEY, null);
  if (pendingNavigation && String(pendingNavigation.presentation) === String(config.presentation) &&
      pendingNavigation.slide === config.slide && pendingNavigation.data &&
      typeof pendingNavigation.data === 'object') {
    navigationData = pendingNavigation.data;
  } else if (reloaded && reloaded.data && typeof reloaded.data === 'object') {
    navigationData = reloaded.data;
  }
  window.StoryCLMNavigationData = navigationData;

  // ---- host events ----
  var listeners = {};
  function emit(name, data) {
    var handlers = listeners[name] || [];
    for (var i = 0; i < handlers.length; i++) {
      try { handlers[i](data); } catch (e) { console.error('storybridge: a "' + name + '" listener failed', e); }
    }
    try {
      window.dispatchEvent(new CustomEvent('storybridge:' + name, { detail: data }));
    } catch (e) { /* very old engines: listeners above still ran */ }
  }

  // Run before the page leaves for a host's navigate event (a dialect adapter's exit hooks), so
  // what they send goes out on this page's socket first.
  var leaveHandlers = [];
  function runLeaveHandlers(data) {
    for (var i = 0; i < leaveHandlers.length; i++) {
      try { leaveHandlers[i](data); } catch (e) { console.error('storybridge: a before-leave handler failed', e); }
    }
  }

  var builtInEvents = {
    navigate: function (data) {
      if (!data || typeof data.url !== 'string') { return; }
      runLeaveHandlers(data);
      save(NAVIGATION_KEY, JSON.stringify({
        presentation: data.presentation, slide: data.slide, data: data.data || {}
      }));
      leaving = true;
      window.location.href = data.url;
    },
    error: function (data) {
      console.warn('storybridge host: ' + (data && data.message ? data.message : 'error'));
    },
    hello: function (data) { if (data && data.chrome) { chrome.apply(data.chrome); } },
    chrome: function (data) { chrome.apply(data); },
    closed: function (data) {
      if (!data || typeof data.url !== 'string') { return; }
      leaving = true;
      window.location.href = data.url;
    },
    reload: function () {
      // The presentation's files changed on disk (serve's live reload): show the new version as
      // the same page load of the same viewer.
      leaving = true;
      save(RELOAD_KEY, JSON.stringify({
        presentation: config.presentation, slide: config.slide, load: pageLoad, data: navigationData
      }));
      window.location.reload();
    },
    confirmClose: function (data) { chrome.confirmClose(data.prompt); },
    unavailable: function (data) { chrome.showUnavailable(data || {}); },
    confirmRestore: function (data) { chrome.confirmRestore(data.prompt, data.session || {}); },
    openMedia: function (data) {
      // A file the host opened for content (openMediaFile) answers its prompt; one it opened for
      // a dialect (an OCE asset) reports how long it was shown, with the command data.report names.
      var opened = Date.now();
      chrome.openMedia(data, function () {
        if (data.prompt) { answerPrompt(data.prompt, 'close'); return; }
        if (data.report) {
          hostRequest(data.report, { fileName: data.fileName, seconds: (Date.now() - opened) / 1000 }, function (answer) {
            if (answer.Status !== 'Success') { console.warn('storybridge: media view not recorded: ' + answer.ErrorMessage); }
          });
        }
      });
    },
    openMediaLibrary: function (data) {
      chrome.openLibrary(data.files || [], function () { answerPrompt(data.prompt, 'close'); });
    }
  };

  // ---- responses ----
  // An answer goes to StoryCLMBridge.StoryCLMHandler as the JSON text the host sent (parsed here
  // once, to route it, never re-serialised). Handlers defer the callback out of the caller; the
  // storyclm.js 2.2 handler does it with setTimeout(..., 1), which Chromium and WebKit wait at
  // least 1 ms for. While the handler runs, such a timer (a function, at most 1 ms) is started as
  // a task of its own on a MessageChannel instead: still never inside the caller, without the wait.
  // Longer timers, and every timer outside the handler's call, are left alone.
  // An answer that came over the socket is handed over from the socket's message event, which
  // ends right after the handler: its short timers run as microtasks (after the handler has
  // returned, with no task in between), and the handler is told so ({ fromSocket: true }: the
  // project's storyclm.js then defers its callback to a microtask too). Answers the page gives
  // itself are handed over from inside the page's own call and keep the MessageChannel task.
  var answerTasks = [];
  var answerPort = null;
  function runAnswerTasks() {
    var tasks = answerTasks;
    answerTasks = [];
    for (var i = 0; i < tasks.length; i++) {
      try { tasks[i](); } catch (e) { console.error('storybridge: an answer callback failed', e); }
    }
  }
  function deferAnswerTask(task) {
    answerTasks.push(task);
    if (answerTasks.length > 1) { return; }
    if (answerPort === null && typeof MessageChannel === 'function') {
      var channel = new MessageChannel();
      channel.port1.onmessage = runAnswerTasks;
      answerPort = channel.port2;
    }
    if (answerPort) { answerPort.postMessage(0); } else { window.setTimeout(runAnswerTasks, 0); }
  }
  // A microtask. When tasks wait for the MessageChannel it joins them, keeping its turn, and they
  // all run in that microtask: while a slide loads, its parser may keep the MessageChannel's task
  // waiting for tens of milliseconds, and an answer from the host would wait behind it.
  function deferAnswerMicrotask(task) {
    if (typeof window.queueMicrotask !== 'function') {
      deferAnswerTask(task);
      return;
    }
    if (answerTasks.length > 0) {
      answerTasks.push(task);
      window.queueMicrotask(runAnswerTasks);
      return;
    }
    window.queueMicrotask(function () {
      try { task(); } catch (e) { console.error('storybridge: an answer callback failed', e); }
    });
  }
  // The setTimeout the handler sees while it runs: one function for every call (no closure made
  // per answer), reading how to defer from the variables callHandler sets around the call. Kept
  // by the page and called after the handler has returned, it is the page's setTimeout.
  var handlerPageSetTimeout = window.setTimeout;
  var handlerDeferShort = null;
  function handlerSetTimeout(callback, delay) {
    if (handlerDeferShort && typeof callback === 'function' && !(Number(delay) > 1)) {
      var args = arguments.length > 2 ? Array.prototype.slice.call(arguments, 2) : [];
      handlerDeferShort(function () { callback.apply(window, args); });
      return 0;
    }
    return handlerPageSetTimeout.apply(window, arguments);
  }
  // `message` is `text` parsed, handed to storyclm.js with an answer from the socket so that it
  // need not parse the text again (the original libraries ignore the second argument).
  function callHandler(handler, bridge, text, fromSocket, message) {
    // The project's storyclm.js defers its callbacks itself and never asks for a timer while it
    // takes an answer: it says so (deliversOutOfCaller) and gets the answer without the timer swap.
    if (fromSocket && handler.deliversOutOfCaller === true) {
      handler.call(bridge, text, { fromSocket: true, message: message });
      return;
    }
    // The page's setTimeout, or (a handler that hands an answer on to the client again) ours.
    var previous = window.setTimeout;
    var outerDeferShort = handlerDeferShort;
    if (previous !== handlerSetTimeout) { handlerPageSetTimeout = previous; }
    handlerDeferShort = fromSocket ? deferAnswerMicrotask : deferAnswerTask;
    window.setTimeout = handlerSetTimeout;
    try {
      if (fromSocket) { handler.call(bridge, text, { fromSocket: true, message: message }); } else { handler.call(bridge, text); }
    } finally {
      window.setTimeout = previous;
      handlerDeferShort = outerDeferShort;
    }
  }

  var undelivered = [];
  function deliverResponse(text, fromSocket, message) {
    var bridge = window.StoryCLMBridge;
    if (bridge && typeof bridge.StoryCLMHandler === 'function') {
      callHandler(bridge.StoryCLMHandler, bridge, text, fromSocket, message);
    } else {
      undelivered.push(text);
    }
  }
  function flushUndelivered() {
    var pending = undelivered;
    undelivered = [];
    for (var i = 0; i < pending.length; i++) { deliverResponse(pending[i], false); }
  }
  document.addEventListener('DOMContentLoaded', flushUndelivered);

  // `fromSocket`: the text came over the socket (this runs in the socket's message event).
  function receive(text, fromSocket) {
    var message;
    try { message = JSON.parse(text); } catch (e) { console.warn('storybridge: unreadable frame from host'); return; }
    if (message && typeof message.Event === 'string') {
      if (builtInEvents[message.Event]) { builtInEvents[message.Event](message.Data); }
      emit(message.Event, message.Data);
    } else if (message && typeof message.GUID === 'string') {
      if (ownRequests[message.GUID]) {
        var callback = ownRequests[message.GUID];
        delete ownRequests[message.GUID];
        callback(message);
      } else {
        deliverResponse(text, fromSocket === true, message);
      }
    }
  }

  // ---- the socket ----
  var socket = null;
  var outbox = [];
  var leaving = false;
  // Shown again from the back/forward cache (not the first page load of this document).
  var restored = false;
  var retryDelay = 250;
  var state = { connected: false, sent: 0, received: 0, earlyAnswers: 0 };

  // The Story context state this page has (docs/PROTOCOL.md §9.5): the version and revision of
  // the slide's window._story, then of each storyChange taken. The host puts them on this script's
  // own tag (data-story): the socket opens while this script runs, before the Story context's
  // element after it is parsed. A page served without them reads that element's attributes.
  var storyState = { read: false, version: null, revision: -1 };
  function storyStateNow() {
    if (!storyState.read) {
      storyState.read = true;
      if (script && script.hasAttribute('data-story')) {
        storyState.version = script.getAttribute('data-story');
        storyState.revision = Number(script.getAttribute('data-story-revision')) || 0;
        return storyState;
      }
      var tag = document.querySelector('script[data-storybridge-story]');
      if (tag) {
        storyState.version = tag.getAttribute('data-storybridge-story');
        storyState.revision = Number(tag.getAttribute('data-storybridge-story-revision')) || 0;
      }
    }
    return storyState;
  }

  function endpoint() {
    var scheme = window.location.protocol === 'https:' ? 'wss://' : 'ws://';
    return scheme + window.location.host + '/__storybridge/ws?' + pageQuery();
  }
  // The page's identity for the host, as the socket and the early requests carry it.
  function pageQuery() {
    var story = storyStateNow();
    return 'viewer=' + encodeURIComponent(viewerId) +
      '&presentation=' + encodeURIComponent(config.presentation) +
      '&slide=' + encodeURIComponent(config.slide) +
      '&load=' + encodeURIComponent(pageLoad) +
      (!restored && /[?&]sbdeeplink=1/.test(window.location.search) ? '&deeplink=1' : '') +
      (story.version ? '&story=' + encodeURIComponent(story.version) : '') +
      '&token=' + encodeURIComponent(config.token);
  }

  // ---- answers the page gives itself while the socket connects ----
  // A slide asks for its own name and navigation data as its scripts run; the browser hands it
  // its connected socket only after the slide's load event. The page knows both answers exactly
  // as the host gives them (its own slide, and the data the host handed over with the navigate
  // event that led here), so while the socket is not open and nothing waits to be sent, it
  // answers them itself, for the commands the host lists in data-page-answers (those its
  // built-in modules answer). Each such exchange is reported to the host once the socket is
  // open, so the inspector and the metrics still see every request.
  var pageAnswered = [];
  var ownAnswers = {
    getCurrentSlideName: function () { return { slide: config.slide }; },
    getNavigationData: function () { return navigationData; }
  };
  function answerInPage(message) {
    if (state.connected || outbox.length !== 0 || early !== null || typeof message.GUID !== 'string' || !message.GUID) { return false; }
    // A page whose socket never opens (refused) does not pile up reports: past 256, the host answers.
    if (pageAnswered.length >= 256) { return false; }
    var command = typeof message.Command === 'string' ? message.Command : '';
    if (config.pageAnswers.indexOf(command) < 0 || !ownAnswers.hasOwnProperty(command)) { return false; }
    var answer = { Data: ownAnswers[command](), ErrorCode: 200, ErrorMessage: '', GUID: message.GUID, Status: 'Success' };
    pageAnswered.push({ request: message, answer: answer });
    // Routed like the host's answer: to the client's own callback (window.__storybridge.request)
    // or to content's StoryCLMHandler.
    receive(JSON.stringify(answer));
    return true;
  }
  function reportPageAnswers() {
    if (pageAnswered.length === 0) { return; }
    var report = { Command: 'storybridge.pageAnswered', Data: { exchanges: pageAnswered } };
    pageAnswered = [];
    socket.send(JSON.stringify(report));
  }

  function flushOutbox() {
    if (outbox.length === 0 || early !== null) { return; }
    if (!socket || socket.readyState !== 1) { scheduleEarly(); return; }
    var batch = outbox;
    outbox = [];
    socket.send(JSON.stringify(batch.length === 1 ? batch[0] : batch));
    state.sent += batch.length;
  }

  // ---- reads sent before the socket is open (docs/PROTOCOL.md §3.9) ----
  // Chromium hands a slide its open socket only after the load event and a rendering pass. The
  // reads the host lists in data-early-answers (it answers them at once, with no event, prompt or
  // write) go meanwhile as a script request: a script the page inserts while it loads runs within
  // the load, with the host's answers. One such request at a time; the requests after it wait
  // their turn in the outbox, so answers keep the order of requests. A script that fails to load
  // or brings no answers puts its requests back, for the socket (they only read).
  var early = null;
  var EARLY_LIMIT = 4096;
  function isEarly(item) {
    return item !== null && typeof item === 'object' && typeof item.GUID === 'string' && item.GUID !== '' &&
      typeof item.Command === 'string' && config.earlyAnswers.indexOf(item.Command) >= 0;
  }
  var earlyScheduled = false;
  // The requests of one task go together: sent after it, in a microtask.
  function scheduleEarly() {
    if (earlyScheduled || config.earlyAnswers.length === 0) { return; }
    earlyScheduled = true;
    Promise.resolve().then(function () {
      earlyScheduled = false;
      if (early === null && (!socket || socket.readyState !== 1)) { sendEarly(); } else { flushOutbox(); }
    });
  }
  function sendEarly() {
    var count = 0;
    while (count < outbox.length && isEarly(outbox[count])) { count += 1; }
    if (count === 0) { return; }
    var batch = outbox.slice(0, count);
    var frame = encodeURIComponent(JSON.stringify(batch.length === 1 ? batch[0] : batch));
    if (frame.length > EARLY_LIMIT) { return; }
    outbox = outbox.slice(count);
    var url = '/__storybridge/early?' + pageQuery() + '&frame=' + frame;
    if (document.readyState !== 'loading' && typeof XMLHttpRequest === 'function') {
      // The document is parsed: the answers are fetched at once (a synchronous request, a few
      // milliseconds on the host's loopback) instead of by a script the browser runs only after
      // the rendering and the other tasks it has queued by then.
      early = { element: null, batch: batch };
      state.sent += batch.length;
      earlyEnded(null, fetchEarlyAnswers(url));
      return;
    }
    var element = document.createElement('script');
    element.src = url;
    element.async = true;
    if ('fetchPriority' in element) { element.fetchPriority = 'high'; }
    early = { element: element, batch: batch };
    element.onload = element.onerror = function () { earlyEnded(element, null); };
    (document.head || document.documentElement).appendChild(element);
    state.sent += batch.length;
  }
  // The answers of an early request sent after the document is parsed (`&as=json`, a JSON array
  // of the answer texts), or null when there are none (a refusal, a dropped connection).
  function fetchEarlyAnswers(url) {
    try {
      var request = new XMLHttpRequest();
      request.open('GET', url + '&as=json', false);
      request.send();
      if (request.status !== 200) { return null; }
      var answers = JSON.parse(request.responseText);
      return Object.prototype.toString.call(answers) === '[object Array]' ? answers : null;
    } catch (e) {
      return null;
    }
  }
  function earlyEnded(element, answers) {
    if (early === null || early.element !== element) { return; }
    var batch = early.batch;
    early = null;
    if (element && element.parentNode) { element.parentNode.removeChild(element); }
    if (answers === null) {
      state.sent -= batch.length;
      outbox = batch.concat(outbox);
    } else {
      state.earlyAnswers += answers.length;
      for (var i = 0; i < answers.length; i++) { state.received += 1; receive(answers[i], true); }
    }
    if (!socket || socket.readyState !== 1) {
      // Waits for the socket unless what is next may go early too.
      if (answers !== null) { sendEarly(); }
      return;
    }
    flushOutbox();
  }
  function earlyAnswered(answers) {
    if (early !== null && Object.prototype.toString.call(answers) === '[object Array]') { earlyEnded(early.element, answers); }
  }

  function connect() {
    var opened;
    try {
      opened = new WebSocket(endpoint());
    } catch (e) {
      console.error('storybridge: cannot open the bridge socket', e);
      return;
    }
    socket = opened;
    // A socket the page has replaced (shown again from the back/forward cache, it opens another)
    // may still report its close: it is no longer the page's, and is not heard.
    socket.onopen = function () {
      if (socket !== opened) { return; }
      state.connected = true;
      retryDelay = 250;
      reportPageAnswers();
      flushOutbox();
    };
    socket.onmessage = function (event) {
      if (socket !== opened) { return; }
      state.received += 1;
      receive(event.data, true);
    };
    socket.onclose = function (event) {
      if (socket !== opened) { return; }
      state.connected = false;
      if (leaving) { return; }
      // 4400-4499: the host refused this page (wrong token, unknown slide...): trying again cannot
      // help, so say why and stop. 4503 (connection limit) and drops are retried.
      if (event.code >= 4400 && event.code < 4500) {
        state.refused = { code: event.code, reason: event.reason };
        console.error('storybridge: the host refused the bridge socket (' + event.code + '): ' + event.reason);
        return;
      }
      console.warn('storybridge: bridge socket closed (' + event.code + '), reconnecting in ' + retryDelay + ' ms');
      setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 5000);
    };
  }

  // Open the socket now, before the rest of the client is set up: the connection's handshake then
  // overlaps with that work and with the page's parsing, and the slide's first requests find it
  // open sooner. Everything the socket's handlers use is in place before any of them can run.
  connect();

  /** Sends one request object or an array of them to the host. */
  function post(message) {
    if (message === null || typeof message !== 'object') { return; }
    // The usual case, one request while the socket is open and nothing waits to go: sent as it is.
    if (state.connected && outbox.length === 0 && early === null && !Array.isArray(message) && socket.readyState === 1) {
      socket.send(JSON.stringify(message));
      state.sent += 1;
      return;
    }
    var messages = Object.prototype.toString.call(message) === '[object Array]' ? message : [message];
    for (var i = 0; i < messages.length; i++) {
      var item = messages[i];
      if (item === null || typeof item !== 'object' || !answerInPage(item)) { outbox.push(item); }
    }
    flushOutbox();
  }

  // ---- the client's own requests (viewer chrome), answered to the client, not to content ----
  var ownRequests = {};
  var ownCounter = 0;
  function hostRequest(command, data, callback) {
    var message = { Command: command, Data: data || {} };
    if (callback) {
      ownCounter += 1;
      message.GUID = 'SB_' + ownCounter + '_' + pageLoad;
      ownRequests[message.GUID] = callback;
    }
    post(message);
  }
  function answerPrompt(prompt, value) {
    hostRequest('storybridge.promptAnswer', { prompt: prompt, value: value });
  }

  // ---- the legacy doorbell shim ----
  var drainScheduled = false;
  function isDoorbell(value) { return /^\s*storyclm:/i.test(String(value)); }
  // storyclm.js 1.1.0 replaces window.console with an object that sends each line as a command
  // (consolelog {log}, consoleinfo {info}, consolewarn {warn}, consoleerror {error}), so the
  // browser's console would show none of the page's lines. The client shows them there too, with
  // the browser's own console methods as they were before any wrapping (docs/PROTOCOL.md §5.10).
  var browserConsole = typeof console === 'object' && console !== null ? console : null;
  var echoConsole = browserConsole && {
    consolelog: ['log', browserConsole.log], consoleinfo: ['info', browserConsole.info],
    consolewarn: ['warn', browserConsole.warn], consoleerror: ['error', browserConsole.error]
  };
  function echoLegacyConsole(queued) {
    for (var i = 0; i < queued.length; i++) {
      var message = queued[i];
      var command = message && message.Command;
      if (typeof command !== 'string' || command.charCodeAt(0) !== 99 || !echoConsole.hasOwnProperty(command)) { continue; }
      var method = echoConsole[command];
      var data = message.Data;
      if (typeof method[1] !== 'function' || !data || typeof data !== 'object') { continue; }
      var value = data[method[0]];
      var args = [value];
      if (value && typeof value === 'object' && !Array.isArray(value) && Object.prototype.hasOwnProperty.call(value, '0')) {
        args = [];
        for (var n = 0; Object.prototype.hasOwnProperty.call(value, String(n)); n++) { args.push(value[String(n)]); }
      }
      try { method[1].apply(browserConsole, args); } catch (e) { /* the echo never breaks the page */ }
    }
  }
  function drainLegacyQueue() {
    drainScheduled = false;
    var bridge = window.StoryCLMBridge;
    if (!bridge || typeof bridge.GetQueue !== 'function') { return; }
    var queued;
    try {
      var text = bridge.GetQueue();
      queued = typeof text === 'string' ? JSON.parse(text || '[]') : text;
    } catch (e) {
      console.error('storybridge: StoryCLMBridge.GetQueue() did not return a JSON array', e);
      return;
    }
    if (queued && queued.length) {
      if (echoConsole && window.console !== browserConsole) { echoLegacyConsole(queued); }
      post(queued);
    }
  }
  function ringDoorbell() {
    if (drainScheduled) { return; }
    drainScheduled = true;
    // Several invokes in one tick ring once, as in the apps; drain after the current task.
    Promise.resolve().then(drainLegacyQueue);
  }
  var srcProperty = Object.getOwnPropertyDescriptor(HTMLIFrameElement.prototype, 'src');
  if (srcProperty && srcProperty.set && srcProperty.configurable) {
    Object.defineProperty(HTMLIFrameElement.prototype, 'src', {
      configurable: true,
      enumerable: srcProperty.enumerable,
      get: function () { return srcProperty.get.call(this); },
      set: function (value) {
        if (isDoorbell(value)) { ringDoorbell(); return; }
        srcProperty.set.call(this, value);
      }
    });
  }
  var setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    if (this instanceof HTMLIFrameElement && String(name).toLowerCase() === 'src' && isDoorbell(value)) {
      ringDoorbell();
      return undefined;
    }
    return setAttribute.apply(this, arguments);
  };

  // pagehide comes before the page's socket is closed, and (unlike beforeunload, which the client
  // does not listen to) costs the browser nothing when it leaves the page for the next slide.
  // The client closes the socket itself: a page the browser keeps in its back/forward cache
  // (slides are served `no-cache`, not `no-store`, so that the browser may keep them and start
  // the next slide's document without first tearing this one down) would keep it open, and the
  // host would take the viewer to be on it still.
  window.addEventListener('pagehide', function () {
    leaving = true;
    if (socket) {
      try { socket.close(1000, 'page hidden'); } catch (e) { /* already closing */ }
    }
  });
  // Shown again from the back/forward cache: the same document, a new page load for the host, as
  // a reload would be (a slide view, the viewer on this slide again), over a new socket.
  window.addEventListener('pageshow', function (event) {
    if (!event.persisted) { return; }
    restored = true;
    leaving = false;
    state.connected = false;
    pageLoad = randomId();
    if (window.__storybridge) { window.__storybridge.pageLoad = pageLoad; }
    retryDelay = 250;
    connect();
  });

  window.__storybridge = {
    version: 1,
    viewerId: viewerId,
    pageLoad: pageLoad,
    presentation: config.presentation,
    slide: config.slide,
    state: state,
    /** The Story context's version and revision this page has (§9.5), as its socket sends them. */
    story: storyStateNow,
    post: post,
    request: hostRequest,
    earlyAnswered: earlyAnswered,
    chrome: null,
    /** Listens to a host event ("navigate", "hello", "error", ...). */
    on: function (name, handler) {
      (listeners[name] = listeners[name] || []).push(handler);
    },
    /** Runs `handler(data)` when a host's navigate event is about to take the page away. */
    beforeLeave: function (handler) {
      leaveHandlers.push(handler);
    }
  };

  // ---- the Story context: window._story, window.nativeStory, webkit.messageHandlers ----
  // (docs/PROTOCOL.md §9) The host writes the presentation's context into the slide as
  // window._story, right after this script and before any content script. Content's context.js
  // reports each changed leaf through window.nativeStory.setStoryProp(objectName, keyPath, type,
  // value) / deleteStoryProp(objectName, keyPath) (the Android app's names) or
  // webkit.messageHandlers.setStoryProp / deleteStoryProp.postMessage(JSON text of {objectName,
  // keyPath, type, value}) (the iOS app's). Both are provided; context.js calls both for one
  // change, so a report equal to the one the other channel made just before, in the same task,
  // is that same change and is dropped. The changes of one task go to the host as one
  // storybridge.storyChanges request. The host answers every page of the presentation (this one
  // too) with a storyChange event: window._story is replaced and window._onStoryChange() called.
  // The client never defines _onStoryChange itself: context.js defines it, once.
  (function () {
    var queued = [];
    // storybridge.storyChanges requests of this page not answered yet.
    var sending = 0;
    function report(channel, change) {
      var text = JSON.stringify(change);
      var last = queued[queued.length - 1];
      if (last && !last.paired && last.channel !== channel && last.text === text) { last.paired = true; return; }
      queued.push({ channel: channel, text: text, change: change });
      if (queued.length === 1) { window.queueMicrotask(sendChanges); }
    }
    function sendChanges() {
      var changes = [];
      for (var i = 0; i < queued.length; i++) { changes.push(queued[i].change); }
      queued = [];
      sending += 1;
      hostRequest('storybridge.storyChanges', { changes: changes }, function (answer) {
        sending -= 1;
        if (sending === 0 && held) { var last = held; held = null; take(last); }
        var refused = (answer && answer.Data && answer.Data.refused) || [];
        for (var j = 0; j < refused.length; j++) {
          console.warn('storybridge: Story context change refused: ' + refused[j].reason, changes[refused[j].index]);
        }
        if (answer && answer.Status !== 'Success') { console.warn('storybridge: Story context: ' + answer.ErrorMessage); }
      });
    }
    function setChange(objectName, keyPath, type, value) {
      return {
        op: 'set', objectName: String(objectName), keyPath: String(keyPath), type: String(type),
        value: value === undefined ? null : value
      };
    }
    function deleteChange(objectName, keyPath) {
      return { op: 'delete', objectName: String(objectName), keyPath: keyPath === undefined ? '' : String(keyPath) };
    }
    function fromMessage(body) {
      if (typeof body !== 'string') { return body || {}; }
      try { return JSON.parse(body) || {}; } catch (e) { console.warn('storybridge: unreadable Story context message', body); return null; }
    }
    if (!window.nativeStory) {
      window.nativeStory = {
        setStoryProp: function (objectName, keyPath, type, value) {
          report('android', setChange(objectName, keyPath, type, value));
        },
        deleteStoryProp: function (objectName, keyPath) { report('android', deleteChange(objectName, keyPath)); }
      };
    }
    var webkit = window.webkit = window.webkit || {};
    var handlers = webkit.messageHandlers = webkit.messageHandlers || {};
    if (!handlers.setStoryProp) {
      handlers.setStoryProp = {
        postMessage: function (body) {
          var m = fromMessage(body);
          if (m) { report('ios', setChange(m.objectName, m.keyPath, m.type, m.value)); }
        }
      };
    }
    if (!handlers.deleteStoryProp) {
      handlers.deleteStoryProp = {
        postMessage: function (body) {
          var m = fromMessage(body);
          if (m) { report('ios', deleteChange(m.objectName, m.keyPath)); }
        }
      };
    }
    // A push is taken unless it is older than the state the page has (a smaller revision) or
    // holds the same state (same version) without restore (the host giving back what a refused
    // change altered). While this page's own changes are on their way, pushes are held and the
    // newest is taken once every one is answered: the push after the first of two quick changes
    // would otherwise show the page its state without the second for a moment.
    var held = null;
    function take(data) {
      var story = storyStateNow();
      var revision = typeof data.revision === 'number' ? data.revision : story.revision;
      if (revision < story.revision) { return; }
      story.revision = revision;
      if (data.version && data.version === story.version && !data.restore) { return; }
      story.version = data.version || null;
      window._story = data.story;
      if (typeof window._onStoryChange === 'function') {
        try { window._onStoryChange(); } catch (e) { console.error('storybridge: _onStoryChange failed', e); }
      }
    }
    window.__storybridge.on('storyChange', function (data) {
      if (!data || String(data.presentation) !== String(config.presentation) || !data.story) { return; }
      if (sending > 0) {
        if (!held || !(data.revision < held.revision) || data.restore) { held = data; }
        return;
      }
      take(data);
    });
  })();

  // ---- the page's console, forwarded to the host (docs/PROTOCOL.md §5.10, consolelog) ----
  // When the host asks for it (data-page-console="RATE BURST"), every console.log/info/warn/
  // error/debug line of the page still does what it did, and is then sent to the host as a
  // consolelog command without a GUID (fire-and-forget): the arguments joined with spaces, each
  // that is not a string written as JSON (an Error as its stack), at most 4,096 characters. A
  // token bucket (RATE lines a second, bursts of BURST: the host's own numbers) keeps a loop of
  // console.log off the socket; lines over it are dropped here and counted, and the count is sent
  // on its own ({dropped: N}) a second after the first drop, so a loop cut short gives one count.
  // Lines logged while the socket is not open wait (at most BURST of them) and follow the host's
  // hello. A line logged while one is being forwarded is not forwarded, so nothing the forwarding
  // itself logs can loop. The wrapper adds a frame to every console call; the source map the
  // host serves for this file (linked at its end) puts it on DevTools' ignore list, so DevTools
  // shows the page's own file and line for each line, not this wrapper.
  (function () {
    var setting = script ? String(script.getAttribute('data-page-console') || '').split(' ') : [];
    var rate = Number(setting[0]);
    var burst = Number(setting[1]);
    if (!(rate > 0) || !(burst >= 1) || typeof console !== 'object' || console === null) { return; }
    var LINE_LIMIT = 4096;
    var timing = window.performance && typeof window.performance.now === 'function' ? window.performance : Date;
    var tokens = burst;
    var refilled = timing.now();
    var dropped = 0;
    var reportTimer = null;
    var waiting = [];
    var forwarding = false;
    var setTimer = window.setTimeout;

    function take() {
      var now = timing.now();
      tokens = Math.min(burst, tokens + (now - refilled) / 1000 * rate);
      refilled = now;
      if (tokens < 1) { return false; }
      tokens -= 1;
      return true;
    }
    function text(value) {
      if (typeof value === 'string') { return value; }
      if (value instanceof Error) { return value.stack || String(value); }
      try {
        var json = JSON.stringify(value);
        return json === undefined ? String(value) : json;
      } catch (e) {
        return String(value);
      }
    }
    function send(data) {
      var frame = JSON.stringify({ Command: 'consolelog', Data: data });
      if (waiting.length === 0 && socket && socket.readyState === 1) {
        socket.send(frame);
      } else if (waiting.length < burst) {
        waiting.push(frame);
      } else {
        noteDropped((data.dropped || 0) + (typeof data.message === 'string' ? 1 : 0));
      }
    }
    function noteDropped(count) {
      dropped += count;
      if (reportTimer === null) { reportTimer = setTimer.call(window, reportDropped, 1000); }
    }
    function reportDropped() {
      reportTimer = null;
      var count = dropped;
      dropped = 0;
      if (count > 0 && !state.refused) { send({ dropped: count }); }
    }
    function forward(level, args) {
      if (forwarding || state.refused) { return; }
      forwarding = true;
      try {
        if (!take()) {
          noteDropped(1);
          return;
        }
        var parts = [];
        for (var i = 0; i < args.length; i++) { parts.push(text(args[i])); }
        var message = parts.join(' ');
        if (message.length > LINE_LIMIT) { message = message.slice(0, LINE_LIMIT) + '\u2026'; }
        send({ level: level, message: message });
      } catch (e) {
        // Forwarding never breaks the page's own console call.
      } finally {
        forwarding = false;
      }
    }
    window.__storybridge.on('hello', function () {
      var frames = waiting;
      waiting = [];
      for (var i = 0; i < frames.length; i++) { socket.send(frames[i]); }
    });
    ['log', 'info', 'warn', 'error', 'debug'].forEach(function (level) {
      var original = console[level];
      if (typeof original !== 'function') { return; }
      console[level] = function () {
        var result = original.apply(this, arguments);
        forward(level, arguments);
        return result;
      };
    });
  })();

  var chrome = deferredChrome();
  window.__storybridge.chrome = chrome;

  // The chrome is built once the page has loaded, or earlier when something needs it (a prompt,
  // a test reading its root). Building it at once, and attaching it at DOMContentLoaded, put a
  // shadow root, a style sheet and a style recalculation on the main thread while the slide
  // loads, ahead of the slide's first answers. Flags that arrive before it is built are kept.
  function deferredChrome() {
    var built = null;
    var flags = null;
    function ensure() {
      if (!built) {
        built = createChrome();
        if (flags) { built.apply(flags); }
      }
      return built;
    }
    if (document.readyState === 'complete') {
      ensure();
    } else {
      window.addEventListener('load', function () { ensure(); });
    }
    function later(name) {
      return function () { var target = ensure(); return target[name].apply(target, arguments); };
    }
    var facade = {
      apply: function (value) {
        if (!value) { return; }
        if (built) { built.apply(value); } else { flags = value; }
      },
      isShown: later('isShown'),
      confirmClose: later('confirmClose'),
      showUnavailable: later('showUnavailable'),
      confirmRestore: later('confirmRestore'),
      openMedia: later('openMedia'),
      openLibrary: later('openLibrary'),
      openMap: later('openMap')
    };
    Object.defineProperty(facade, 'root', { enumerable: true, get: function () { return ensure().root; } });
    Object.defineProperty(facade, 'flags', {
      enumerable: true,
      get: function () { return built ? built.flags : (flags || {}); }
    });
    return facade;
  }

  // ---- the viewer chrome: close, map and media-library buttons, and overlays ----
  // Drawn in a shadow root so content styles and the chrome's styles cannot touch each other.
  function createChrome() {
    var host = document.createElement('storybridge-chrome');
    host.setAttribute('id', 'storybridge-chrome');
    var root = host.attachShadow ? host.attachShadow({ mode: 'open' }) : host;
    var style = document.createElement('style');
    style.textContent = [
      ':host { all: initial; }',
      '.bar { position: fixed; top: 8px; right: 8px; z-index: 2147483646; display: flex; gap: 6px;',
      '  font: 14px/1.2 system-ui, sans-serif; }',
      '.bar button, .panel button { cursor: pointer; border: 0; border-radius: 6px; padding: 6px 10px;',
      '  background: rgba(20, 24, 32, 0.82); color: #fff; font: inherit; }',
      '.bar button:hover, .panel button:hover { background: rgba(20, 24, 32, 0.95); }',
      '[hidden] { display: none !important; }',
      '.overlay { position: fixed; inset: 0; z-index: 2147483647; background: rgba(0, 0, 0, 0.55);',
      '  display: flex; align-items: center; justify-content: center; font: 14px/1.4 system-ui, sans-serif; }',
      '.panel { background: #fff; color: #111; border-radius: 10px; padding: 16px; min-width: 320px;',
      '  max-width: 90vw; max-height: 85vh; overflow: auto; box-shadow: 0 10px 40px rgba(0,0,0,.35); }',
      '.panel h2 { margin: 0 0 12px; font-size: 16px; }',
      '.panel ul { list-style: none; margin: 0; padding-left: 14px; }',
      '.panel li { margin: 4px 0; }',
      '.panel a { color: #0645ad; cursor: pointer; text-decoration: underline; }',
      '.panel a.current { font-weight: bold; color: #111; text-decoration: none; }',
      '.panel .actions { margin-top: 14px; display: flex; gap: 8px; justify-content: flex-end; }',
      '.media { width: min(900px, 86vw); height: min(640px, 70vh); border: 0; background: #222; }',
      'audio.media { height: 54px; background: transparent; }'
    ].join('\n');
    root.appendChild(style);

    var bar = document.createElement('div');
    bar.className = 'bar';
    function button(action, label, title) {
      var b = document.createElement('button');
      b.setAttribute('data-action', action);
      b.setAttribute('title', title);
      b.textContent = label;
      bar.appendChild(b);
      return b;
    }
    var mapButton = button('map', 'Map', 'Presentation map');
    var mediaButton = button('media', 'Media', 'Media library');
    var closeButton = button('close', '\u2715', 'Close the presentation');
    root.appendChild(bar);

    function overlay(title) {
      var layer = document.createElement('div');
      layer.className = 'overlay';
      var panel = document.createElement('div');
      panel.className = 'panel';
      if (title) {
        var heading = document.createElement('h2');
        heading.textContent = title;
        panel.appendChild(heading);
      }
      layer.appendChild(panel);
      root.appendChild(layer);
      return { layer: layer, panel: panel, close: function () { if (layer.parentNode) { layer.parentNode.removeChild(layer); } } };
    }
    function actions(panel, items) {
      var row = document.createElement('div');
      row.className = 'actions';
      for (var i = 0; i < items.length; i++) {
        var b = document.createElement('button');
        b.setAttribute('data-action', items[i][0]);
        b.textContent = items[i][1];
        b.addEventListener('click', items[i][2]);
        row.appendChild(b);
      }
      panel.appendChild(row);
    }

    function openMedia(file, onClose) {
      var view = overlay(file.title || file.fileName);
      view.layer.setAttribute('data-overlay', 'media');
      view.layer.setAttribute('data-file', file.fileName);
      var element;
      if (file.kind === 'audio') {
        element = document.createElement('audio');
        element.controls = true; element.autoplay = true;
      } else if (file.kind === 'video') {
        element = document.createElement('video');
        element.controls = true; element.autoplay = true;
      } else {
        element = document.createElement('iframe');
      }
      element.className = 'media';
      element.src = file.url;
      view.panel.appendChild(element);
      actions(view.panel, [['close-media', 'Close', function () {
        if (element.pause) { element.pause(); }
        view.close();
        if (onClose) { onClose(); }
      }]]);
    }

    function openLibrary(files, onClose) {
      var view = overlay('Media library');
      view.layer.setAttribute('data-overlay', 'library');
      var list = document.createElement('ul');
      if (!files.length) { list.textContent = 'This presentation has no media files.'; }
      for (var i = 0; i < files.length; i++) {
        (function (file) {
          var item = document.createElement('li');
          var link = document.createElement('a');
          link.setAttribute('data-file', file.fileName);
          link.textContent = file.title + ' (' + file.fileName + ')';
          link.addEventListener('click', function () {
            // Opened here rather than through openMediaFile: tell the host how long it was shown,
            // so the media view is recorded as the apps record it.
            var opened = Date.now();
            openMedia(file, function () {
              hostRequest('storybridge.mediaViewed', { fileName: file.fileName, seconds: (Date.now() - opened) / 1000 },
                function (answer) {
                  if (answer.Status !== 'Success') { console.warn('storybridge: media view not recorded: ' + answer.ErrorMessage); }
                });
            });
          });
          item.appendChild(link);
          list.appendChild(item);
        })(files[i]);
      }
      view.panel.appendChild(list);
      actions(view.panel, [['close-library', 'Close', function () { view.close(); if (onClose) { onClose(); } }]]);
    }

    function openMap() {
      hostRequest('storybridge.state', {}, function (answer) {
        if (answer.Status !== 'Success') { console.warn('storybridge: no map: ' + answer.ErrorMessage); return; }
        var map = answer.Data.map || {};
        // The slides' thumbnails the delivery has (Veeva's thumb.png, OCE's NN_thumbnail.jpg).
        var thumbnails = answer.Data.thumbnails || {};
        var view = overlay('Map: ' + answer.Data.presentation.name);
        view.layer.setAttribute('data-overlay', 'map');
        function branch(slide, depth) {
          var item = document.createElement('li');
          var link = document.createElement('a');
          link.setAttribute('data-slide', slide);
          if (thumbnails[slide]) {
            var picture = document.createElement('img');
            picture.src = thumbnails[slide];
            picture.alt = '';
            picture.setAttribute('data-thumbnail', slide);
            picture.style.cssText = 'display:block;width:120px;height:auto;margin:2px 0;border:1px solid #ccc;';
            link.appendChild(picture);
          }
          link.appendChild(document.createTextNode(slide));
          if (slide === config.slide) { link.className = 'current'; }
          link.addEventListener('click', function () {
            view.close();
            hostRequest('storybridge.mapNavigate', { slide: slide }, function (reply) {
              if (reply.Status !== 'Success') { console.warn('storybridge: ' + reply.ErrorMessage); }
            });
          });
          item.appendChild(link);
          var children = map[slide] || [];
          if (children.length && depth < 64) {
            var sub = document.createElement('ul');
            for (var i = 0; i < children.length; i++) { sub.appendChild(branch(children[i], depth + 1)); }
            item.appendChild(sub);
          }
          return item;
        }
        var tree = document.createElement('ul');
        // The map starts at the slide that opens the presentation (index.html for StoryCLM, the
        // first key message or slide in the presentation's order for Veeva and OCE).
        tree.appendChild(branch(answer.Data.entrySlide || 'index.html', 0));
        view.panel.appendChild(tree);
        actions(view.panel, [['close-map', 'Close', view.close]]);
      });
    }

    function confirmClose(prompt) {
      var view = overlay('Save the session?');
      view.layer.setAttribute('data-overlay', 'confirm-close');
      function choose(value) { return function () { view.close(); answerPrompt(prompt, value); }; }
      actions(view.panel, [['save', 'Save', choose('save')], ['discard', 'Don\u2019t save', choose('discard')],
        ['cancel', 'Cancel', choose('cancel')]]);
    }

    // An open the host could not do: the deck is not installed, or the content service blocked it.
    function showUnavailable(data) {
      var view = overlay(data.title || 'Presentation not available');
      view.layer.setAttribute('data-overlay', 'unavailable');
      view.layer.setAttribute('data-presentation', String(data.presentation));
      var note = document.createElement('p');
      note.textContent = data.message || '';
      view.panel.appendChild(note);
      if (data.command) {
        var command = document.createElement('code');
        command.textContent = data.command;
        view.panel.appendChild(command);
      }
      actions(view.panel, [['close-unavailable', 'Close', view.close]]);
    }

    function confirmRestore(prompt, session) {
      var view = overlay('Continue the unfinished session?');
      view.layer.setAttribute('data-overlay', 'confirm-restore');
      var note = document.createElement('p');
      note.textContent = 'A session of this presentation from ' + (session.created || 'earlier') +
        ' was not finished (' + (session.slidesCount || 0) + ' slides viewed).';
      view.panel.appendChild(note);
      function choose(value) { return function () { view.close(); answerPrompt(prompt, value); }; }
      actions(view.panel, [['restore', 'Continue it', choose('restore')], ['new', 'Start a new one', choose('new')]]);
    }

    mapButton.addEventListener('click', openMap);
    mediaButton.addEventListener('click', function () {
      hostRequest('storybridge.state', {}, function (answer) {
        if (answer.Status === 'Success') { openLibrary(answer.Data.mediaFiles || [], null); }
      });
    });
    closeButton.addEventListener('click', function () {
      hostRequest('closePresentation', { mode: 0 });
    });

    function attach() {
      if (!host.parentNode) { (document.body || document.documentElement).appendChild(host); }
    }
    if (document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', attach);
    } else {
      attach();
    }

    return {
      root: root,
      flags: {},
      apply: function (flags) {
        if (!flags) { return; }
        this.flags = flags;
        bar.hidden = flags.systemButtons === false;
        closeButton.hidden = flags.closeButton === false;
        mapButton.hidden = flags.mapButton === false;
        mediaButton.hidden = flags.mediaLibraryButton === false;
      },
      /** Whether the chrome button for `action` ("close", "map", "media") is visible. */
      isShown: function (action) {
        var b = root.querySelector('.bar button[data-action="' + action + '"]');
        return !!b && !bar.hidden && !b.hidden;
      },
      confirmClose: confirmClose,
      showUnavailable: showUnavailable,
      confirmRestore: confirmRestore,
      openMedia: openMedia,
      openLibrary: openLibrary,
      openMap: openMap
    };
  }
})();
// The host serves a map of this file that puts it on DevTools' ignore list, so a line the page
// logs through the console wrapper above shows at the page's own file and line (PROTOCOL.md §5.10).
//# sourceMappingURL=client.js.map
