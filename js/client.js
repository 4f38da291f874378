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
    token: script ? script.getAttribute('data-token') : ''
  };
  var VIEWER_KEY = 'storybridge.viewer';
  var NAVIGATION_KEY = 'storybridge.navigation';

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

  // ---- navigation data handed over by the go/open that led to this slide ----
  var navigationData = {};
  var pendingNavigation = null;
  try { pendingNavigation = JSON.parse(load(NAVIGATION_KEY) || 'null'); } catch (e) { pendingNavigation = null; }
  save(NAVIGATION_KEY, null);
  if (pendingNavigation && String(pendingNavigation.presentation) === String(config.presentation) &&
      pendingNavigation.slide === config.slide && pendingNavigation.data &&
      typeof pendingNavigation.data === 'object') {
    navigationData = pendingNavigation.data;
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

  var builtInEvents = {
    navigate: function (data) {
      if (!data || typeof data.url !== 'string') { return; }
      save(NAVIGATION_KEY, JSON.stringify({
        presentation: data.presentation, slide: data.slide, data: data.data || {}
      }));
      leaving = true;
      window.location.href = data.url;
    },
    error: function (data) {
      console.warn('storybridge host: ' + (data && data.message ? data.message : 'error'));
    }
  };

  // ---- responses ----
  var undelivered = [];
  function deliverResponse(message) {
    var bridge = window.StoryCLMBridge;
    if (bridge && typeof bridge.StoryCLMHandler === 'function') {
      bridge.StoryCLMHandler(JSON.stringify(message));
    } else {
      undelivered.push(message);
    }
  }
  function flushUndelivered() {
    var pending = undelivered;
    undelivered = [];
    for (var i = 0; i < pending.length; i++) { deliverResponse(pending[i]); }
  }
  document.addEventListener('DOMContentLoaded', flushUndelivered);

  function receive(text) {
    var message;
    try { message = JSON.parse(text); } catch (e) { console.warn('storybridge: unreadable frame from host'); return; }
    if (message && typeof message.Event === 'string') {
      if (builtInEvents[message.Event]) { builtInEvents[message.Event](message.Data); }
      emit(message.Event, message.Data);
    } else if (message && typeof message.GUID === 'string') {
      deliverResponse(message);
    }
  }

  // ---- the socket ----
  var socket = null;
  var outbox = [];
  var leaving = false;
  var retryDelay = 250;
  var state = { connected: false, sent: 0, received: 0 };

  function endpoint() {
    var scheme = window.location.protocol === 'https:' ? 'wss://' : 'ws://';
    return scheme + window.location.host + '/__storybridge/ws' +
      '?viewer=' + encodeURIComponent(viewerId) +
      '&presentation=' + encodeURIComponent(config.presentation) +
      '&slide=' + encodeURIComponent(config.slide) +
      '&load=' + encodeURIComponent(pageLoad) +
      '&token=' + encodeURIComponent(config.token);
  }

  function flushOutbox() {
    if (!socket || socket.readyState !== 1 || outbox.length === 0) { return; }
    var batch = outbox;
    outbox = [];
    socket.send(JSON.stringify(batch.length === 1 ? batch[0] : batch));
    state.sent += batch.length;
  }

  function connect() {
    try {
      socket = new WebSocket(endpoint());
    } catch (e) {
      console.error('storybridge: cannot open the bridge socket', e);
      return;
    }
    socket.onopen = function () {
      state.connected = true;
      retryDelay = 250;
      flushOutbox();
    };
    socket.onmessage = function (event) {
      state.received += 1;
      receive(event.data);
    };
    socket.onclose = function (event) {
      state.connected = false;
      if (leaving) { return; }
      console.warn('storybridge: bridge socket closed (' + event.code + '), reconnecting in ' + retryDelay + ' ms');
      setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 5000);
    };
  }

  /** Sends one request object or an array of them to the host. */
  function post(message) {
    if (message === null || typeof message !== 'object') { return; }
    if (Object.prototype.toString.call(message) === '[object Array]') {
      for (var i = 0; i < message.length; i++) { outbox.push(message[i]); }
    } else {
      outbox.push(message);
    }
    flushOutbox();
  }

  // ---- the legacy doorbell shim ----
  var drainScheduled = false;
  function isDoorbell(value) { return /^\s*storyclm:/i.test(String(value)); }
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
    if (queued && queued.length) { post(queued); }
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

  window.addEventListener('pagehide', function () { leaving = true; });
  window.addEventListener('beforeunload', function () { leaving = true; });

  window.__storybridge = {
    version: 1,
    viewerId: viewerId,
    pageLoad: pageLoad,
    presentation: config.presentation,
    slide: config.slide,
    state: state,
    post: post,
    /** Listens to a host event ("navigate", "hello", "error", ...). */
    on: function (name, handler) {
      (listeners[name] = listeners[name] || []).push(handler);
    }
  };

  connect();
})();
