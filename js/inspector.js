/*
 * storybridge inspector: the browser side of /__storybridge/inspector (see docs/INSPECTOR.md).
 * Polls the snapshot (viewers, sessions, upload) and shows the live feed of bridge calls.
 * Everything coming from the host is rendered with textContent, never as markup.
 */
(function () {
  'use strict';

  var BASE = '/__storybridge/inspector/';
  var MAX_ROWS = 2000;
  var MAX_ENTRIES = 10000;
  var POLL_MS = 2000;
  var DEBOUNCE_MS = 250;
  var MAX_BACKOFF_MS = 5000;

  var token = new URLSearchParams(location.search).get('token') || '';
  var state = { entries: [], snapshot: null, ready: false };
  window.__inspector = state;

  var $ = function (id) { return document.getElementById(id); };
  var logBody = $('log-table').tBodies[0];
  var sessionBody = $('sessions-table').tBodies[0];
  var filterCommand = $('filter-command');
  var filterViewer = $('filter-viewer');
  var filterEvents = $('filter-events');
  var pauseButton = $('pause');

  var rows = [];            // {entry, row, detail}, oldest first
  var paused = false;
  var buffered = [];        // entries received while paused
  var knownViewers = {};    // viewer id -> true (ids offered in the viewer filter)
  var expandedSessions = {};
  var liveReceived = false;
  var snapshotRendered = false;
  var lastRendered = { viewers: null, sessions: null, upload: null };

  // ---- helpers ------------------------------------------------------------------------------

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function append(parent) {
    for (var i = 1; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined) { continue; }
      parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    }
    return parent;
  }

  function short(id) { return id ? String(id).slice(0, 8) : ''; }

  function pad(n, width) { var s = String(n); while (s.length < width) { s = '0' + s; } return s; }

  function clock(iso) {
    var d = new Date(iso);
    if (!iso || isNaN(d.getTime())) { return iso ? String(iso) : ''; }
    return pad(d.getHours(), 2) + ':' + pad(d.getMinutes(), 2) + ':' + pad(d.getSeconds(), 2) + '.' + pad(d.getMilliseconds(), 3);
  }

  // Local time, with the date only when it is not today.
  function dateTime(iso) {
    var d = new Date(iso);
    if (!iso || isNaN(d.getTime())) { return iso ? String(iso) : '—'; }
    var time = clock(iso).slice(0, 8);
    if (d.toDateString() === new Date().toDateString()) { return time; }
    return d.getFullYear() + '-' + pad(d.getMonth() + 1, 2) + '-' + pad(d.getDate(), 2) + ' ' + time.slice(0, 5);
  }

  function pretty(value) {
    if (value === undefined) { return '—'; }
    if (typeof value === 'string') { return value; }
    try { return JSON.stringify(value, null, 2); } catch (e) { return String(value); }
  }

  function bytes(n) {
    if (typeof n !== 'number') { return ''; }
    if (n < 1024) { return n + ' B'; }
    if (n < 1024 * 1024) { return (n / 1024).toFixed(1) + ' KB'; }
    return (n / 1024 / 1024).toFixed(1) + ' MB';
  }

  function orDash(value) { return value === null || value === undefined || value === '' ? '—' : String(value); }

  function block(label, value) {
    var wrap = el('div', 'block');
    append(wrap, el('div', 'block-label', label), el('pre', 'json', pretty(value)));
    return wrap;
  }

  function smallTable(headers, items, cells) {
    var table = el('table', 'grid small');
    var head = append(el('tr'));
    headers.forEach(function (h) { head.appendChild(el('th', null, h)); });
    append(table, append(el('thead'), head));
    var body = el('tbody');
    (items || []).forEach(function (item) {
      var tr = el('tr');
      cells(item).forEach(function (c) { tr.appendChild(el('td', null, orDash(c))); });
      body.appendChild(tr);
    });
    if (!items || !items.length) {
      var td = el('td', 'empty', 'none');
      td.colSpan = headers.length;
      body.appendChild(append(el('tr'), td));
    }
    return append(table, body);
  }

  // ---- calls log ----------------------------------------------------------------------------

  // A Veeva or OCE library call carried by one bridge command: the function it called, and
  // whether the host refused it (a Veeva {success: false} answer, an OCE `refused` reason). The
  // bridge answer itself is a Success either way, so without this a refusal would look answered.
  function dialectCall(entry) {
    var data = entry.data || {};
    var response = entry.response || {};
    if (entry.command === 'veeva.request' && typeof data.request === 'string') {
      var result = response.result;
      return { name: data.request.replace(/^\s*(veeva|vaultcrm):/i, '').split('(')[0],
               refused: !!result && typeof result === 'object' && result.success === false };
    }
    if (entry.command === 'oce.call' && typeof data.request === 'string') {
      return { name: 'CLMPlayer.' + data.request, refused: typeof response.refused === 'string' };
    }
    return null;
  }

  function describe(entry) {
    switch (entry.type) {
      case 'exchange':
        var call = dialectCall(entry);
        return { kind: 'request', name: entry.command || '', status: call && call.refused ? 'refused' : entry.status || '',
                 code: entry.status ? entry.code : '', ms: typeof entry.ms === 'number' ? entry.ms.toFixed(2) : '',
                 extra: call ? call.name : null };
      case 'event':
        return { kind: 'event', name: entry.name || '', status: '', code: '', ms: '',
                 extra: null };
      case 'connection':
        return { kind: 'connection', name: entry.connected ? 'connected' : 'disconnected', status: '', code: '', ms: '',
                 extra: entry.slide || null };
      case 'reload':
        var files = entry.files || [];
        return { kind: 'reload', name: 'reload', status: '', code: '', ms: '',
                 extra: files.length + (files.length === 1 ? ' file' : ' files') + (files.length ? ': ' + files.slice(0, 3).join(', ') + (files.length > 3 ? ', …' : '') : '') };
      case 'warning':
        return { kind: 'warning', name: entry.slide || '', status: '', code: '', ms: '',
                 extra: entry.message || null };
      case 'console':
        // A line of a page's console, at the level the page used; or the count of its lines
        // dropped by the rate limit (dropped > 0, level warn).
        return { kind: 'console', name: 'console.' + (entry.level || 'log'), status: '', code: '', ms: '',
                 extra: entry.message || null };
      default:
        return { kind: String(entry.type || '?'), name: '', status: '', code: '', ms: '' };
    }
  }

  function buildRow(entry) {
    var d = describe(entry);
    var tr = el('tr', 'entry kind-' + d.kind);
    tr.dataset.type = String(entry.type || '');
    tr.dataset.command = d.name;
    tr.dataset.viewer = entry.viewer ? String(entry.viewer) : '';
    tr.dataset.status = d.status;
    if (entry.type === 'exchange' && d.extra) { tr.dataset.call = d.extra; }
    if (entry.type === 'exchange' && d.status && d.status !== 'Success') { tr.classList.add('failure'); }
    if (entry.type === 'event') { tr.classList.add('event'); }
    if (entry.type === 'connection' && !entry.connected) { tr.classList.add('gone'); }
    if (entry.type === 'console') {
      tr.classList.add('level-' + String(entry.level || 'log'));
      if (entry.dropped > 0) { tr.classList.add('dropped'); }
    }
    var viewerCell = el('td', 'c-viewer mono', short(entry.viewer));
    if (entry.viewer) { viewerCell.title = String(entry.viewer); }
    var nameCell = el('td', 'c-name mono', d.name);
    if (d.extra) { append(nameCell, ' ', el('span', 'dim', d.extra)); }
    append(tr, el('td', 'c-time mono', clock(entry.at)), viewerCell, el('td', 'c-kind', d.kind), nameCell,
      el('td', 'c-status', d.status || (entry.type === 'exchange' ? '—' : '')),
      el('td', 'c-code num mono', d.code === '' || d.code === null || d.code === undefined ? '' : d.code),
      el('td', 'c-ms num mono', d.ms));
    return tr;
  }

  function buildDetail(entry) {
    var tr = el('tr', 'detail');
    var td = el('td');
    td.colSpan = 7;
    var box = el('div', 'detail-box');
    if (entry.type === 'exchange') {
      var meta = 'guid ' + orDash(entry.guid) + '   seq ' + orDash(entry.seq);
      if (entry.message) { meta += '   message: ' + entry.message; }
      append(box, el('div', 'meta mono', meta), block('request Data', entry.data),
        block('response Data', entry.status ? entry.response : '(not answered)'));
    } else if (entry.type === 'event') {
      append(box, el('div', 'meta mono', 'seq ' + orDash(entry.seq)), block('event data', entry.data));
    } else if (entry.type === 'console') {
      append(box, el('div', 'meta mono', 'level ' + orDash(entry.level) + '   presentation ' + orDash(entry.presentation) +
        '   slide ' + orDash(entry.slide) + (entry.dropped > 0 ? '   dropped ' + entry.dropped : '') + '   seq ' + orDash(entry.seq)),
        el('div', 'console-message mono', entry.message || ''));
    } else if (entry.type === 'warning') {
      append(box, el('div', 'meta mono', 'presentation ' + orDash(entry.presentation) + '   slide ' + orDash(entry.slide) +
        '   seq ' + orDash(entry.seq)), el('div', 'warning-message', entry.message || ''));
    } else if (entry.type === 'reload') {
      var list = el('ul', 'files mono');
      (entry.files || []).forEach(function (f) { list.appendChild(el('li', null, f)); });
      append(box, el('div', 'meta mono', 'presentation ' + orDash(entry.presentation) + '   seq ' + orDash(entry.seq)),
        el('div', 'block-label', 'files'), list);
    } else {
      append(box, block('entry', entry));
    }
    tr.appendChild(append(td, box));
    return tr;
  }

  function toggleDetail(record) {
    if (record.detail && record.detail.parentNode) {
      record.detail.remove();
      record.row.classList.remove('open');
      return;
    }
    if (!record.detail) { record.detail = buildDetail(record.entry); }
    record.row.after(record.detail);
    record.row.classList.add('open');
  }

  function matches(record) {
    var entry = record.entry;
    if (entry.type === 'event' && !filterEvents.checked) { return false; }
    var viewer = filterViewer.value;
    if (viewer && record.row.dataset.viewer !== viewer) { return false; }
    var text = filterCommand.value.trim().toLowerCase();
    var named = record.row.dataset.command + ' ' + (record.row.dataset.call || '');
    if (text && named.toLowerCase().indexOf(text) < 0) { return false; }
    return true;
  }

  function applyFilter(record) {
    var show = matches(record);
    record.visible = show;
    record.row.style.display = show ? '' : 'none';
    if (record.detail) { record.detail.style.display = show ? '' : 'none'; }
  }

  function updateCounts() {
    var shown = 0;
    for (var i = 0; i < rows.length; i++) { if (rows[i].visible) { shown++; } }
    $('count-shown').textContent = String(shown);
    $('count-total').textContent = String(rows.length);
    $('log-empty').hidden = rows.length > 0;
  }

  function applyFilters() {
    rows.forEach(applyFilter);
    updateCounts();
  }

  function noteViewer(id) {
    if (!id || knownViewers[id]) { return; }
    knownViewers[id] = true;
    var option = el('option', null, short(id));
    option.value = String(id);
    option.title = String(id);
    filterViewer.appendChild(option);
  }

  function addRow(entry) {
    var record = { entry: entry, row: buildRow(entry), detail: null, visible: true };
    record.row.addEventListener('click', function () { toggleDetail(record); });
    applyFilter(record);
    logBody.insertBefore(record.row, logBody.firstChild);
    rows.push(record);
    while (rows.length > MAX_ROWS) {
      var old = rows.shift();
      old.row.remove();
      if (old.detail) { old.detail.remove(); }
    }
  }

  function clearLog() {
    rows = [];
    logBody.textContent = '';
    updateCounts();
  }

  function setPaused(value) {
    paused = value;
    pauseButton.setAttribute('aria-pressed', String(paused));
    pauseButton.classList.toggle('active', paused);
    if (!paused) {
      var pending = buffered;
      buffered = [];
      pending.forEach(addRow);
      updateCounts();
    }
    pauseButton.textContent = paused ? 'Resume (' + buffered.length + ')' : 'Pause';
  }

  // ---- live feed ----------------------------------------------------------------------------

  var socket = null;
  var backoff = 250;
  var refreshTimer = null;

  function setStatus(live) {
    var badge = $('status');
    badge.textContent = live ? 'live' : 'disconnected';
    badge.className = 'badge ' + (live ? 'on' : 'off');
  }

  function receive(entry) {
    if (!entry || typeof entry !== 'object') { return; }
    if (entry.type === 'live') {
      liveReceived = true;
      checkReady();
      return;
    }
    state.entries.push(entry);
    if (state.entries.length > MAX_ENTRIES) { state.entries.splice(0, state.entries.length - MAX_ENTRIES); }
    noteViewer(entry.viewer);
    if (paused) {
      buffered.push(entry);
      pauseButton.textContent = 'Resume (' + buffered.length + ')';
    } else {
      addRow(entry);
      updateCounts();
    }
    if (entry.type === 'exchange' || entry.type === 'connection' || entry.type === 'reload' ||
        (entry.type === 'event' && entry.name === 'storyChange')) {
      clearTimeout(refreshTimer);
      refreshTimer = setTimeout(refreshSnapshot, DEBOUNCE_MS);
    }
  }

  function connect() {
    var scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    var ws;
    try {
      ws = new WebSocket(scheme + '//' + location.host + BASE + 'ws?token=' + encodeURIComponent(token));
    } catch (e) {
      scheduleReconnect();
      return;
    }
    socket = ws;
    ws.onopen = function () {
      if (socket !== ws) { return; }
      backoff = 250;
      // The host resends its recent history on every connection: start the log afresh.
      state.entries.length = 0;
      buffered = [];
      if (paused) { pauseButton.textContent = 'Resume (0)'; }
      clearLog();
      setStatus(true);
    };
    ws.onmessage = function (event) {
      if (socket !== ws || typeof event.data !== 'string') { return; }
      var entry;
      try { entry = JSON.parse(event.data); } catch (e) { return; }
      receive(entry);
    };
    ws.onclose = function () {
      if (socket !== ws) { return; }
      socket = null;
      setStatus(false);
      scheduleReconnect();
    };
    ws.onerror = function () { /* onclose follows */ };
  }

  function scheduleReconnect() {
    var delay = backoff;
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    setTimeout(connect, delay);
  }

  // ---- snapshot -----------------------------------------------------------------------------

  var fetching = false;
  var fetchAgain = false;

  function refreshSnapshot() {
    if (fetching) { fetchAgain = true; return; }
    fetching = true;
    fetch(BASE + 'snapshot?token=' + encodeURIComponent(token), { cache: 'no-store' })
      .then(function (response) {
        if (!response.ok) { throw new Error('HTTP ' + response.status); }
        return response.json();
      })
      .then(function (snapshot) {
        state.snapshot = snapshot;
        renderSnapshot(snapshot);
        showSnapshotError(null);
        snapshotRendered = true;
        checkReady();
      })
      .catch(function (error) {
        showSnapshotError('snapshot failed: ' + (error && error.message ? error.message : String(error)));
      })
      .then(function () {
        fetching = false;
        if (fetchAgain) { fetchAgain = false; refreshSnapshot(); }
      });
  }

  function showSnapshotError(text) {
    var line = $('snapshot-error');
    line.textContent = text || '';
    line.hidden = !text;
  }

  function checkReady() {
    if (snapshotRendered && liveReceived) { state.ready = true; }
  }

  function changed(key, value) {
    var json = JSON.stringify(value === undefined ? null : value);
    if (lastRendered[key] === json) { return false; }
    lastRendered[key] = json;
    return true;
  }

  function renderSnapshot(snapshot) {
    $('version').textContent = snapshot.version ? 'v' + snapshot.version : '';
    var viewers = Array.isArray(snapshot.viewers) ? snapshot.viewers : [];
    viewers.forEach(function (v) { noteViewer(v.viewer); });
    if (changed('viewers', viewers)) { renderViewers(viewers); }
    var sessions = Array.isArray(snapshot.sessions) ? snapshot.sessions : [];
    if (changed('sessions', sessions)) { renderSessions(sessions); }
    if (changed('upload', snapshot.upload)) { renderUpload(snapshot.upload || null); }
    var contexts = Array.isArray(snapshot.storyContexts) ? snapshot.storyContexts : [];
    if (changed('storyContexts', contexts)) { renderStoryContexts(contexts); }
  }

  // The Story context of each presentation a viewer shows: one row per leaf (key path, exact
  // type, value as the host stores it), marked when content may change it.
  function renderStoryContexts(contexts) {
    var box = $('story-contexts');
    box.textContent = '';
    if (!contexts.length) { box.appendChild(el('p', 'empty', 'No presentation open.')); return; }
    contexts.forEach(function (c) {
      var card = el('div', 'story-context');
      card.dataset.presentation = String(c.presentation);
      append(card, el('div', 'meta mono', (c.name || '') + ' #' + c.presentation));
      if (c.error) { append(card, el('p', 'error-line', c.error)); box.appendChild(card); return; }
      var table = smallTable(['key path', 'type', 'value', 'content'], c.leaves, function (leaf) {
        return [leaf.path, leaf.type, leaf.value, leaf.contentMutable ? 'writes' : 'reads'];
      });
      var rows = table.querySelectorAll('tbody tr');
      for (var i = 0; i < rows.length && i < (c.leaves || []).length; i++) { rows[i].dataset.path = c.leaves[i].path; }
      card.appendChild(table);
      box.appendChild(card);
    });
  }

  function chip(label, on) {
    var c = el('span', 'chip ' + (on ? 'on' : 'off'));
    c.dataset.flag = label;
    append(c, label + ' ', el('b', null, on ? 'on' : 'off'));
    return c;
  }

  function row(label, value, valueClass) {
    var r = el('div', 'kv');
    append(r, el('span', 'k', label), typeof value === 'object' && value !== null ? value : el('span', 'v ' + (valueClass || ''), orDash(value)));
    return r;
  }

  // The OCE app's player buttons: content hears them as CLMPlayer.executeEvent(name).
  var PLAYER_BUTTONS = [['return to call', 'returntocallbuttonpress'], ['cancel', 'cancelbuttonpress'], ['pause', 'pausebuttonpress']];
  function playerButtons(viewer, connected) {
    var box = el('span', 'player-buttons');
    PLAYER_BUTTONS.forEach(function (b) {
      var button = el('button', 'player-button', b[0]);
      button.type = 'button';
      button.dataset.event = b[1];
      button.disabled = !connected;
      button.title = connected ? 'content hears CLMPlayer.executeEvent(\u2019' + b[1] + '\u2019)' : 'the viewer shows no page';
      button.addEventListener('click', function (event) {
        event.stopPropagation();
        var path = '/__storybridge/viewers/' + encodeURIComponent(viewer) + '/player/' + b[1] + '?token=' + encodeURIComponent(token);
        fetch(path, { method: 'POST', cache: 'no-store' }).then(function (response) {
          if (response.ok) { button.dataset.pressed = String((+button.dataset.pressed || 0) + 1); return null; }
          return response.text().then(function (text) { button.title = text; button.classList.add('failed'); });
        }, function (error) { button.title = String(error); button.classList.add('failed'); });
      });
      box.appendChild(button);
    });
    return box;
  }

  function renderViewers(viewers) {
    var box = $('viewer-cards');
    box.textContent = '';
    if (!viewers.length) { box.appendChild(el('p', 'empty', 'No viewers.')); return; }
    viewers.forEach(function (v) {
      var card = el('div', 'viewer' + (v.connected ? ' connected' : ''));
      card.dataset.viewer = String(v.viewer || '');
      card.title = 'show only this viewer\u2019s calls';
      if (filterViewer.value && filterViewer.value === card.dataset.viewer) { card.classList.add('selected'); }
      var head = el('div', 'viewer-head');
      var dot = el('span', 'dot ' + (v.connected ? 'on' : 'off'));
      dot.title = v.connected ? 'connected' : 'not connected';
      var pres = v.presentation;
      append(head, dot, el('span', 'mono strong', short(v.viewer)),
        el('span', 'pres', pres ? (pres.name || '') + ' ' : 'no presentation'),
        pres ? el('span', 'dim mono', '#' + pres.id) : null);
      card.appendChild(head);
      card.appendChild(row('slide', v.slide, 'mono'));
      if (v.slideThumbnail) {
        // The delivery's picture of the slide on screen (a Veeva key message's, an OCE slide's).
        var picture = el('img', 'thumbnail');
        picture.src = v.slideThumbnail;
        picture.alt = 'thumbnail of ' + (v.slide || '');
        picture.setAttribute('data-thumbnail', v.slideThumbnail);
        card.appendChild(row('thumbnail', picture));
      }
      var crumbs = el('ol', 'breadcrumb mono');
      (v.history || []).forEach(function (s) { crumbs.appendChild(el('li', null, s)); });
      card.appendChild(row('history', (v.history || []).length ? crumbs : null));
      var chrome = v.chrome || {};
      var chips = el('span', 'chips');
      append(chips, chip('close', chrome.closeButton), chip('map', chrome.mapButton),
        chip('media library', chrome.mediaLibraryButton), chip('system', chrome.systemButtons));
      card.appendChild(row('chrome', chips));
      card.appendChild(row('session', v.sessionId, 'mono'));
      card.appendChild(row('last cause', v.lastCause, 'mono'));
      var nav = v.navigationData;
      var hasNav = nav !== null && nav !== undefined && !(typeof nav === 'object' && Object.keys(nav).length === 0);
      card.appendChild(row('nav data', hasNav ? el('pre', 'json', pretty(nav)) : null));
      if (pres && pres.dialect === 'oce') { card.appendChild(row('player', playerButtons(String(v.viewer || ''), v.connected))); }
      card.addEventListener('click', function () { selectViewer(card.dataset.viewer); });
      box.appendChild(card);
    });
  }

  function selectViewer(id) {
    noteViewer(id);
    filterViewer.value = id;
    onViewerFilterChanged();
  }

  function onViewerFilterChanged() {
    var selected = filterViewer.value;
    var cards = document.querySelectorAll('#viewer-cards .viewer');
    for (var i = 0; i < cards.length; i++) {
      cards[i].classList.toggle('selected', !!selected && cards[i].dataset.viewer === selected);
    }
    applyFilters();
  }

  function sessionDetail(s) {
    var tr = el('tr', 'session-detail');
    var td = el('td');
    td.colSpan = 8;
    var box = el('div', 'detail-box');
    append(box, el('div', 'meta mono', 'session ' + orDash(s.sessionId) + '   presentation #' + orDash(s.presentationId) + '   viewer ' + orDash(s.viewer)),
      el('div', 'block-label', 'slide views'),
      smallTable(['slide', 'dur. s', 'navigation', 'cause', 'created'], s.slides, function (x) {
        return [x.slideName, x.duration, x.navigation, x.cause, dateTime(x.created)];
      }),
      el('div', 'block-label', 'media views'),
      smallTable(['file', 'dur. s', 'created'], s.media, function (x) { return [x.fileName, x.duration, dateTime(x.created)]; }),
      el('div', 'block-label', 'custom events'),
      smallTable(['key', 'value', 'created'], s.customEvents, function (x) { return [x.key, x.value, dateTime(x.created)]; }));
    // A Veeva or OCE deck's records (CRM saves, OCE actions and tracked pages) and OCE saved state.
    if (Array.isArray(s.records) && s.records.length) {
      append(box, el('div', 'block-label', 'content records'),
        smallTable(['object', 'id', 'fields', 'saved'], s.records, function (x) {
          return [x.object, x.id, JSON.stringify(x.fields), dateTime(x.saved)];
        }));
    }
    if (Array.isArray(s.oceStates) && s.oceStates.length) {
      append(box, el('div', 'block-label', 'OCE saved state'),
        smallTable(['state', 'saved'], s.oceStates, function (x) { return [JSON.stringify(x.state), dateTime(x.saved)]; }));
    }
    tr.appendChild(append(td, box));
    return tr;
  }

  function renderSessions(sessions) {
    sessionBody.textContent = '';
    $('sessions-empty').hidden = sessions.length > 0;
    sessions.forEach(function (s) {
      var id = String(s.sessionId || '');
      var tr = el('tr', 'session' + (s.current ? ' current' : '') + (s.complete ? ' complete' : ''));
      tr.dataset.session = id;
      var viewerCell = el('td', 'mono', short(s.viewer));
      viewerCell.title = String(s.viewer || '');
      var marker = el('td', 'marker', s.current ? 'current' : '');
      append(tr, el('td', null, orDash(s.presentationName)), viewerCell, el('td', 'mono', dateTime(s.created)),
        el('td', 'num mono', orDash(s.state)), el('td', null, s.complete ? 'yes' : 'no'),
        el('td', 'num mono', orDash(s.duration)), el('td', 'num mono', orDash(s.slidesCount)), marker);
      sessionBody.appendChild(tr);
      var detail = null;
      if (expandedSessions[id]) { detail = sessionDetail(s); tr.classList.add('open'); sessionBody.appendChild(detail); }
      tr.addEventListener('click', function () {
        if (detail) {
          detail.remove(); detail = null;
          delete expandedSessions[id];
          tr.classList.remove('open');
        } else {
          detail = sessionDetail(s);
          tr.after(detail);
          expandedSessions[id] = true;
          tr.classList.add('open');
        }
      });
    });
  }

  function setField(name, text, className) {
    var node = document.querySelector('#upload [data-field="' + name + '"]');
    if (!node) { return; }
    node.textContent = text;
    node.className = className || '';
  }

  function renderUpload(upload) {
    var u = upload || {};
    var enabled = !!(upload && upload.enabled);
    var stateChip = $('upload-state');
    stateChip.textContent = enabled ? 'upload on' : 'upload off';
    stateChip.className = 'chip ' + (enabled ? 'on' : 'off');
    $('upload').classList.toggle('disabled', !enabled);
    setField('collector', enabled ? orDash(u.collector) : 'upload off', 'mono');
    setField('queued', orDash(u.queued), 'mono');
    setField('queuedBytes', typeof u.queuedBytes === 'number' ? '(' + bytes(u.queuedBytes) + ')' : '', 'dim');
    setField('sent', orDash(u.sent), 'mono');
    setField('setAside', orDash(u.setAside), 'mono');
    setField('droppedRecords', orDash(u.droppedRecords), 'mono');
    setField('droppedBytes', typeof u.droppedBytes === 'number' ? '(' + bytes(u.droppedBytes) + ')' : '', 'dim');
    setField('nextAttemptAt', u.nextAttemptAt ? dateTime(u.nextAttemptAt) : '—', 'mono');
    setField('lastError', orDash(u.lastError), u.lastError ? 'error' : '');
  }

  // ---- recording (serve --record, the Record/Stop button) --------------------------------------

  var RECORDING = '/__storybridge/recording?token=' + encodeURIComponent(token);
  var recordButton = $('record');

  function renderRecording(status) {
    $('recording').hidden = false;
    recordButton.textContent = status.recording ? 'Stop' : 'Record';
    recordButton.setAttribute('aria-pressed', status.recording ? 'true' : 'false');
    recordButton.classList.toggle('active', !!status.recording);
    var text = '';
    if (status.file) {
      text = (status.recording ? 'recording ' : 'recorded ') + status.steps + ' steps of ' + status.viewers +
        ' viewer(s) into ' + status.file + (status.recording ? '' : ' (replay: storybridge test ' + status.file + ')');
    }
    $('record-state').textContent = text;
    var download = $('record-download');
    download.hidden = !status.file || !!status.recording;
    download.href = RECORDING.replace('/recording?', '/recording/script?');
  }

  function recording(body) {
    var options = body ? { method: 'POST', body: JSON.stringify(body), cache: 'no-store' } : { cache: 'no-store' };
    return fetch(RECORDING, options).then(function (response) {
      if (response.status === 404) { $('recording').hidden = true; return null; }
      return response.json().then(function (status) {
        if (!response.ok) { throw new Error(status && status.error ? status.error : 'HTTP ' + response.status); }
        renderRecording(status);
        return status;
      });
    }).catch(function (error) { $('record-state').textContent = 'recording: ' + error.message; });
  }

  recordButton.addEventListener('click', function () {
    recording({ recording: recordButton.getAttribute('aria-pressed') !== 'true' });
  });

  // ---- wiring -------------------------------------------------------------------------------

  filterCommand.addEventListener('input', applyFilters);
  filterEvents.addEventListener('change', applyFilters);
  filterViewer.addEventListener('change', onViewerFilterChanged);
  $('clear-log').addEventListener('click', function () { buffered = []; clearLog(); if (paused) { setPaused(true); } });
  pauseButton.addEventListener('click', function () { setPaused(!paused); });

  setStatus(false);
  updateCounts();
  refreshSnapshot();
  setInterval(refreshSnapshot, POLL_MS);
  recording(null);
  setInterval(function () { if (recordButton.getAttribute('aria-pressed') === 'true') { recording(null); } }, POLL_MS);
  connect();
}());
