/*
 * A small Story context library, written for storybridge's fixtures. It speaks the protocol the
 * StoryCLM apps expect from content (the one StoryCLM's own context.js speaks), so that
 * storybridge can be tested against it without shipping the vendor's file:
 *
 *  - the app puts the shared state in window._story ({scheme: {NAME: {appMutable,
 *    contentMutable}}, NAME: {...}}) and calls window._onStoryChange();
 *  - this script turns it into window.story: one proxy per object, refusing writes to objects
 *    whose scheme says contentMutable: false, and calls story.onStoryChange();
 *  - every leaf content changes is reported to the app, through both app-side channels when
 *    both exist: window.nativeStory.setStoryProp(objectName, keyPath, type, value) /
 *    deleteStoryProp(objectName, keyPath), and webkit.messageHandlers.setStoryProp /
 *    deleteStoryProp.postMessage(JSON text of {objectName, keyPath, type, value}).
 *
 * Types: boolean, integer, float, string, null (objects are reported leaf by leaf).
 */
(function () {
  'use strict';
  if (window._story === undefined) { window._story = {}; }

  function kind(value) {
    if (value === null) { return 'null'; }
    switch (typeof value) {
      case 'boolean': return 'boolean';
      case 'string': return 'string';
      case 'number':
        if (!isFinite(value)) { throw new TypeError('story: NaN and infinities cannot be shared'); }
        return Math.floor(value) === value ? 'integer' : 'float';
      case 'object': return 'object';
      case 'undefined': return 'undefined';
      default: throw new TypeError('story: a ' + typeof value + ' cannot be shared');
    }
  }

  function tellApp(deleting, objectName, keyPath, value) {
    var type = deleting ? undefined : kind(value);
    var android = window.nativeStory;
    if (android && typeof android.setStoryProp === 'function') {
      if (deleting) { android.deleteStoryProp(objectName, keyPath); }
      else { android.setStoryProp(objectName, keyPath, type, value); }
    }
    var ios = window.webkit && window.webkit.messageHandlers;
    if (ios && ios.setStoryProp && typeof ios.setStoryProp.postMessage === 'function') {
      if (deleting) { ios.deleteStoryProp.postMessage(JSON.stringify({ objectName: objectName, keyPath: keyPath })); }
      else {
        ios.setStoryProp.postMessage(JSON.stringify({ objectName: objectName, keyPath: keyPath, type: type, value: value }));
      }
    }
  }

  // Reports `value` at `path` leaf by leaf, after the current task (as the apps' library does).
  function report(objectName, path, value) {
    setTimeout(function () {
      var keyPath = path.join('.');
      if (value === undefined) { tellApp(true, objectName, keyPath); return; }
      if (value !== null && typeof value === 'object') {
        Object.keys(value).forEach(function (key) { report(objectName, path.concat([key]), value[key]); });
        return;
      }
      tellApp(false, objectName, keyPath, value);
    }, 0);
  }

  function guard(objectName, path, source, writable) {
    var copy = {};
    Object.keys(source || {}).forEach(function (key) {
      var item = source[key];
      copy[key] = item !== null && typeof item === 'object' ? guard(objectName, path.concat([key]), item, writable) : item;
    });
    function refuse(key) {
      if (!writable) { throw new Error('story: ' + objectName + '.' + path.concat([key]).join('.') + ' is read-only'); }
    }
    return new Proxy(copy, {
      set: function (target, key, value) {
        refuse(key);
        target[key] = value;
        report(objectName, path.concat([key]), value);
        return true;
      },
      deleteProperty: function (target, key) {
        refuse(key);
        delete target[key];
        report(objectName, path.concat([key]), undefined);
        return true;
      }
    });
  }

  function build() {
    var state = window._story || {};
    var scheme = state.scheme || {};
    var keep = window.story && window.story.onStoryChange;
    var story = {};
    Object.keys(state).forEach(function (name) {
      if (name === 'scheme') { return; }
      story[name] = guard(name, [], state[name], !!(scheme[name] && scheme[name].contentMutable));
    });
    story.onStoryChange = keep;
    story.setStory = function (changes) {
      Object.keys(changes).forEach(function (name) {
        Object.keys(changes[name]).forEach(function (key) { report(name, [key], changes[name][key]); });
      });
    };
    story.removeStoryProp = function (address) {
      var parts = String(address).split('.');
      var name = parts.shift();
      tellApp(true, name, parts.join('.'));
    };
    window.story = story;
  }

  build();
  if (window._onStoryChange === undefined) {
    Object.defineProperty(window, '_onStoryChange', {
      value: function () {
        build();
        if (typeof window.story.onStoryChange === 'function') { window.story.onStoryChange(); }
      },
      writable: false, configurable: false, enumerable: false
    });
  }
})();
