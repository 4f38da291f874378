/*
 * storybridge Veeva adapter: injected after client.js into every key message of a Veeva CRM or
 * Vault CRM delivery (docs/dialects/VEEVA-IMPLEMENTATION.md). It catches every transport the
 * vendors' libraries use, in the order their runAPIRequest tries them, and forwards each request
 * string to the host over the bridge socket as one `veeva.request`:
 *
 *  1. framed (Engage): window.parent.postMessage. Not taken: key messages are served top-level,
 *     so the libraries never see themselves framed (framed, createRecord would never call back).
 *  2. window.external.notify(request), which the libraries use when navigator.platform contains
 *     "win": defined here on every platform, so Windows browsers are answered too.
 *  3. window.webkit.messageHandlers.veeva.postMessage({message: request}) (Vault CRM 2024):
 *     defined here beside the client's own handlers (setStoryProp, deleteStoryProp).
 *  4. document.location = "veeva:…" / "vaultcrm:…" (Veeva CRM 4.x, and the Vault library without
 *     the handler), and content's own links and assignments (<a href="veeva:gotoSlide(KM.zip)">,
 *     a swipe handler's document.location = "veeva:nextSlide()"): cancelled before they leave the
 *     page, by the Navigation API's navigate event (Chromium) and, for links, a click listener
 *     (every browser), then forwarded. Each caught navigate event counts in stats.navigations.
 *  5. The library itself, before its request becomes a navigation: Veeva CRM 4.x's library is a
 *     classic script that declares `var com;` and sets com.veeva.clm = {runAPIRequest, …}, and
 *     its functions call com.veeva.clm.runAPIRequest(request). Accessor traps set up here, before
 *     content runs (`com` on window, then `veeva` on the object stored there, then `clm` on that),
 *     see clm arrive and wrap its runAPIRequest once: a string request is forwarded as it is (not
 *     URI-encoded, transport 'library'), with no navigation, unless the library's own isEngage()
 *     says it is framed, when the original runs. A top-level `var com;` keeps an existing own
 *     property of window (checked in Chromium), so the library's declaration keeps the trap; until
 *     something is stored the getter reads on up the prototype chain (undefined, or an element
 *     whose id is "com", which then holds the library unwrapped, as it would without the trap), so
 *     `typeof com` and `com == null` read as before. The Vault library's com.veeva.clm is wrapped
 *     the same way. A library bundled out of the globals (a module, an IIFE's own `com`, a `let
 *     com`) is not seen: its requests still arrive through 2 to 4.
 *
 * The host answers in request order, once per request, with {callback, result}; the result (a
 * JavaScript object, never JSON text) goes to the global the callback names, looked up when the
 * answer arrives, and only if it holds a function. Before a navigation request leaves, the exit
 * hooks the app calls when a key message is left run, and their requests are sent first.
 *
 * Plain ES5, no dependencies.
 */
(function () {
  'use strict';
  var bridge = window.__storybridge;
  if (!bridge || window.__storybridgeVeeva) { return; }

  var SCHEME = /^\s*(veeva|vaultcrm):/i;
  var NAVIGATION = /^\s*(gotoSlide|gotoSlideV2|nextSlide|prevSlide)\s*\(/;
  var stats = { sent: 0, answered: 0, called: 0, navigations: 0 };

  // The global a request names for its answer, read as the host reads it: callback(NAME), else
  // the last NAME(result). Used when the host's answer is a failure without one.
  function callbackName(text) {
    var named = /(?:^|,)\s*callback\(\s*([A-Za-z_$][\w$]*)\s*\)\s*$/.exec(text);
    if (named) { return named[1]; }
    var result = /,\s*([A-Za-z_$][\w$]*)\(\s*result\s*\)\s*$/.exec(text);
    return result ? result[1] : null;
  }

  function deliver(name, result) {
    if (!name || !result) { return; }
    var target = window[name];
    if (typeof target !== 'function') { return; }
    stats.called += 1;
    try { target(result); } catch (e) { console.error('storybridge: the Veeva callback ' + name + ' failed', e); }
  }

  function send(text, transport, answered) {
    bridge.request('veeva.request', { request: text, transport: transport }, function (answer) {
      stats.answered += 1;
      if (answered) { answered(); }
      var data = answer && answer.Data;
      if (answer && answer.Status === 'Success' && data && typeof data === 'object') {
        deliver(data.callback, data.result);
      } else {
        var message = answer && answer.ErrorMessage ? answer.ErrorMessage : 'no answer from the host';
        var fn = (/^\s*([A-Za-z0-9_]+)/.exec(text) || [])[1] || 'request';
        deliver(callbackName(text), { success: false, code: 1000, message: fn + ': ' + message });
      }
    });
    stats.sent += 1;
  }

  // The app calls these globals when a key message is left; each returns request strings joined
  // by ";" (formatCreateRecords and its siblings), run before the navigation.
  var exitHooks = ['com_veeva_clm_createRecordsOnExit', 'com_veeva_clm_updateRecordsOnExit',
    'com_veeva_clm_updateCurrentRecordsOnExit'];
  function runExitHooks() {
    for (var i = 0; i < exitHooks.length; i++) {
      var hook = window[exitHooks[i]];
      if (typeof hook !== 'function') { continue; }
      var requests;
      try { requests = hook(); } catch (e) { continue; }
      if (typeof requests !== 'string') { continue; }
      var parts = requests.split(/;(?=\s*(?:veeva|vaultcrm):)/i);
      for (var j = 0; j < parts.length; j++) {
        var part = parts[j].replace(/;\s*$/, '');
        if (SCHEME.test(part)) { send(part.replace(SCHEME, ''), 'exit'); }
      }
    }
  }

  /** Forwards one request string (with or without its scheme). `encoded`: URI-encoded (a URL). */
  function forward(raw, transport, encoded) {
    var text = String(raw).replace(SCHEME, '');
    if (encoded) {
      try { text = decodeURIComponent(text); } catch (e) { /* sent as it came */ }
    }
    if (NAVIGATION.test(text)) {
      runExitHooks();
      // The navigate event this request leads to comes before its answer and must not run the
      // hooks a second time; a refused navigation (no event) is over with its answer.
      ownNavigationPending = true;
      send(text, transport, function () { ownNavigationPending = false; });
      return;
    }
    send(text, transport);
  }

  // A navigation the page did not ask for through the library (the viewer chrome's buttons, a
  // StoryCLM go, a deep link, a schedule): the app calls the exit hooks before the key message is
  // left, so the adapter does too, before the host's navigate event takes the page away.
  var ownNavigationPending = false;
  bridge.beforeLeave(function () {
    if (ownNavigationPending) {
      ownNavigationPending = false;
      return;
    }
    runExitHooks();
  });

  // 2. window.external.notify
  try {
    var external = window.external;
    if (!external || (typeof external !== 'object' && typeof external !== 'function')) {
      external = {};
      Object.defineProperty(window, 'external', { configurable: true, value: external });
    }
    external.notify = function (request) { forward(request, 'external', false); };
  } catch (e) { /* a browser whose window.external cannot take it: the other transports remain */ }

  // 3. window.webkit.messageHandlers.veeva, beside the client's handlers
  var webkit = window.webkit = window.webkit || {};
  var handlers = webkit.messageHandlers = webkit.messageHandlers || {};
  handlers.veeva = {
    postMessage: function (body) {
      var request = body && typeof body === 'object' ? body.message : body;
      if (typeof request === 'string') { forward(request, 'messageHandler', false); }
    }
  };

  // 4. veeva: / vaultcrm: navigations
  if (window.navigation && typeof window.navigation.addEventListener === 'function') {
    window.navigation.addEventListener('navigate', function (event) {
      var url = event.destination && event.destination.url;
      if (typeof url !== 'string' || !SCHEME.test(url)) { return; }
      stats.navigations += 1;
      if (event.cancelable) { event.preventDefault(); }
      forward(url, 'location', true);
    });
  }
  document.addEventListener('click', function (event) {
    var node = event.target;
    while (node && node.nodeType === 1 && String(node.nodeName).toLowerCase() !== 'a') { node = node.parentNode; }
    if (!node || node.nodeType !== 1) { return; }
    var href = node.getAttribute('href');
    if (typeof href !== 'string' || !SCHEME.test(href) || event.defaultPrevented) { return; }
    event.preventDefault();
    forward(href, 'link', true);
  }, true);

  // 5. com.veeva.clm.runAPIRequest of the library, wrapped as the library defines it
  var WRAPPED = '__storybridgeWrapped';

  function isObject(value) {
    return value !== null && (typeof value === 'object' || typeof value === 'function');
  }

  function wrapLibrary(clm) {
    if (!isObject(clm)) { return; }
    var original;
    try { original = clm.runAPIRequest; } catch (e) { return; }
    if (typeof original !== 'function' || original[WRAPPED]) { return; }
    var wrapper = function (request, callback) {
      var framed = false;
      try { framed = typeof clm.isEngage === 'function' && clm.isEngage() === true; } catch (e) { framed = false; }
      if (typeof request !== 'string' || framed) { return original.apply(this, arguments); }
      forward(request, 'library', false);
    };
    wrapper[WRAPPED] = true;
    try { clm.runAPIRequest = wrapper; } catch (e) { /* a frozen library: its navigations are caught by 4 */ }
  }

  // Makes owner[name] an accessor that stores what is assigned and hands it to `stored` (also the
  // value already there). A property that cannot take the trap (not configurable, read-only,
  // someone else's accessor, a frozen owner) is only handed over as it is.
  function trap(owner, name, stored) {
    var existing;
    try { existing = Object.getOwnPropertyDescriptor(owner, name); } catch (e) { return; }
    if (existing && existing.get && existing.get[WRAPPED]) { return; }
    if (existing && (!existing.configurable || !('value' in existing) || !existing.writable)) {
      if ('value' in existing) { stored(existing.value); }
      return;
    }
    var held = !!existing;
    var value = held ? existing.value : undefined;
    // Until something is stored, a read goes on up the prototype chain, as it would with no own
    // property (on window: an element whose id is the name).
    var get = function () {
      if (held) { return value; }
      var proto = Object.getPrototypeOf(owner);
      return proto ? proto[name] : undefined;
    };
    get[WRAPPED] = true;
    try {
      Object.defineProperty(owner, name, {
        configurable: true,
        enumerable: existing ? existing.enumerable : true,
        get: get,
        set: function (next) { held = true; value = next; stored(next); }
      });
    } catch (e) { /* not extensible */ }
    if (existing) { stored(value); }
  }

  function trapClm(veeva) { if (isObject(veeva)) { trap(veeva, 'clm', wrapLibrary); } }
  function trapVeeva(com) { if (isObject(com)) { trap(com, 'veeva', trapClm); } }
  trap(window, 'com', trapVeeva);

  window.__storybridgeVeeva = { version: 1, stats: stats, forward: forward };
})();
