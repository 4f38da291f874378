/*
 * storybridge OCE adapter: injected after client.js into every slide of an IQVIA OCE delivery
 * (docs/dialects/OCE-IMPLEMENTATION.md). OCE content calls the CLMPlayer library, which posts
 * JSON.stringify({request, params}) through one of two transports:
 *
 *  1. webkit.messageHandlers.nativeCall.postMessage(text), through the bare `webkit` global
 *     (a ReferenceError where it is absent): defined here beside the client's own handlers
 *     (setStoryProp, deleteStoryProp) and Veeva's, which keep working.
 *  2. the library's variant, parent.postMessage(text, '*'): slides are served top-level, so
 *     `parent` is the page's own window; a `message` event from this window whose data is JSON
 *     text (or an object) with a string `request` is taken as the same call. Inside a frame the
 *     variant posts to the frame's parent, which is not storybridge's page: not handled there.
 *
 * Each call goes to the host as one `oce.call {request, params, transport}` through the
 * client's request path. OCE content gets no answers; the host's `refused` reasons go to the
 * console, `alert` shows a notice over the slide that does not block the page. The app talks to
 * content only through events: once the slide has loaded, CLMPlayer.executeEvent('viewappearing')
 * is called, executeEvent('viewdisappearing') when the page is left, and the player's buttons
 * (returntocallbuttonpress, cancelbuttonpress, pausebuttonpress) when the host's `oce.event` says.
 *
 * Content may bring no CLMPlayer and expect the player to provide one: a CLMPlayer speaking the
 * nativeCall wire is defined here when the page has none; a library the content loads replaces it.
 * Horizontal swipes navigate (next/previous slide in the presentation's order), unless they start
 * in a region content declared with defineNoSwipeRegion.
 *
 * Plain ES5, no dependencies.
 */
(function () {
  'use strict';
  var bridge = window.__storybridge;
  if (!bridge || window.__storybridgeOce) { return; }

  var stats = { sent: 0, answered: 0, refused: 0, events: 0 };
  var regions = {};
  var refusals = [];

  function showNotice(text) {
    var box = document.createElement('div');
    box.setAttribute('data-storybridge-oce-alert', '1');
    box.textContent = String(text);
    box.style.cssText = 'position:fixed;left:50%;top:16px;transform:translateX(-50%);z-index:2147483647;' +
      'max-width:80%;padding:10px 16px;border-radius:6px;background:rgba(20,20,20,.88);color:#fff;' +
      'font:14px/1.4 system-ui,sans-serif;pointer-events:none;';
    (document.body || document.documentElement).appendChild(box);
    setTimeout(function () { if (box.parentNode) { box.parentNode.removeChild(box); } }, 4000);
  }

  function send(message, transport) {
    var request = message && typeof message.request === 'string' ? message.request : '';
    var params = message && message.params && typeof message.params === 'object' ? message.params : {};
    if (request === 'defineNoSwipeRegion' && params.regionId != null) {
      regions[String(params.regionId)] = { x: +params.x || 0, y: +params.y || 0, width: +params.width || 0, height: +params.height || 0 };
    } else if (request === 'destroyNoSwipeRegion' && params.regionId != null) {
      delete regions[String(params.regionId)];
    }
    stats.sent += 1;
    bridge.request('oce.call', { request: request, params: params, transport: transport }, function (answer) {
      stats.answered += 1;
      var data = answer && answer.Data;
      if (!answer || answer.Status !== 'Success' || !data) {
        stats.refused += 1;
        console.warn('storybridge: CLMPlayer.' + request + ' not carried out: ' + (answer && answer.ErrorMessage || 'no answer from the host'));
      } else if (typeof data.refused === 'string') {
        stats.refused += 1;
        refusals.push(data.refused);
        console.warn('storybridge: ' + data.refused);
      } else if (typeof data.alert === 'string') {
        console.info('storybridge: CLMPlayer.alert: ' + data.alert);
        showNotice(data.alert);
      }
    });
  }

  function forward(body, transport) {
    var message = body;
    if (typeof body === 'string') {
      try { message = JSON.parse(body); } catch (e) { console.warn('storybridge: unreadable CLMPlayer message', body); return; }
    }
    if (!message || typeof message !== 'object' || typeof message.request !== 'string') { return false; }
    send(message, transport);
    return true;
  }

  // 1. webkit.messageHandlers.nativeCall, beside the client's handlers
  var webkit = window.webkit = window.webkit || {};
  var handlers = webkit.messageHandlers = webkit.messageHandlers || {};
  handlers.nativeCall = { postMessage: function (body) { forward(body, 'nativeCall'); } };

  // 2. the variant's parent.postMessage, top-level: a message to this window from itself
  window.addEventListener('message', function (event) {
    if (event.source !== window) { return; }
    var data = event.data;
    if (typeof data === 'string' && data.indexOf('"request"') < 0) { return; }
    if (typeof data === 'string' || (data && typeof data === 'object' && typeof data.request === 'string')) {
      forward(data, 'postMessage');
    }
  });

  // A CLMPlayer for content that brings none (a library the content loads replaces it).
  if (!window.CLMPlayer) {
    var player = window.CLMPlayer = { registeredEvents: {} };
    var functions = {
      getSurveyFlowJsonForCall: ['json'], getSurveyFlowJson: ['json'], updateFeedback: ['type'],
      gotoSlide: ['sequenceId', 'slideName', 'animation'], goPreviousSequence: [], goNextSequence: [],
      stopTrackingPage: [], startTrackingPage: ['pageid'], saveState: ['state'], alert: ['msg'],
      addAction: ['action__c', 'detailedtime__c', 'fromtime__c', 'totime__c', 'product__c', 'pageid__c',
        'productmessageexternalid__c', 'slideorder__c', 'category__c', 'reaction__c', 'questionraised__c',
        'extra1__c', 'extra2__c', 'extra3__c', 'extra4__c', 'extra5__c', 'assets'],
      defineNoSwipeRegion: ['regionId', 'x', 'y', 'width', 'height'], destroyNoSwipeRegion: ['regionId']
    };
    Object.keys(functions).forEach(function (name) {
      player[name] = function () {
        var params = {};
        for (var i = 0; i < functions[name].length; i++) { params[functions[name][i]] = arguments[i]; }
        window.webkit.messageHandlers.nativeCall.postMessage(JSON.stringify({ request: name, params: params }));
      };
    });
    player.registerEventListener = function (type, fn) {
      (player.registeredEvents[type] = player.registeredEvents[type] || []).push(fn);
    };
    player.executeEvent = function (type, param) {
      var listeners = player.registeredEvents[type] || [];
      for (var i = 0; i < listeners.length; i++) { listeners[i](param); }
    };
  }

  /** Calls CLMPlayer.executeEvent(type, param) on whichever CLMPlayer the page holds now. */
  function pushEvent(type, param) {
    var target = window.CLMPlayer;
    if (!target || typeof target.executeEvent !== 'function') { return; }
    stats.events += 1;
    try { target.executeEvent(type, param); } catch (e) { console.error('storybridge: a CLMPlayer ' + type + ' listener failed', e); }
  }
  window.addEventListener('load', function () { setTimeout(function () { pushEvent('viewappearing'); }, 0); });
  window.addEventListener('pagehide', function () { pushEvent('viewdisappearing'); });
  // The player's buttons, pressed from the inspector (POST /__storybridge/viewers/ID/player/EVENT).
  bridge.on('oce.event', function (data) {
    if (data && typeof data.type === 'string') { pushEvent(data.type, data.param); }
  });

  // Swipes: a horizontal stroke of 60 px or more (twice as wide as tall), within a second, that
  // does not start in a no-swipe region.
  var start = null;
  function inRegion(x, y) {
    for (var id in regions) {
      if (!regions.hasOwnProperty(id)) { continue; }
      var r = regions[id];
      if (x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height) { return true; }
    }
    return false;
  }
  window.addEventListener('pointerdown', function (event) {
    start = event.isPrimary === false ? null : { x: event.clientX, y: event.clientY, t: Date.now() };
  }, true);
  window.addEventListener('pointerup', function (event) {
    var from = start;
    start = null;
    if (!from || Date.now() - from.t > 1000) { return; }
    var dx = event.clientX - from.x;
    var dy = event.clientY - from.y;
    if (Math.abs(dx) < 60 || Math.abs(dx) < 2 * Math.abs(dy)) { return; }
    if (inRegion(from.x, from.y)) { stats.ignoredSwipes = (stats.ignoredSwipes || 0) + 1; return; }
    send({ request: 'swipe', params: { direction: dx < 0 ? 'next' : 'previous' } }, 'swipe');
  }, true);

  window.__storybridgeOce = { version: 1, stats: stats, regions: regions, refusals: refusals, pushEvent: pushEvent };
})();
