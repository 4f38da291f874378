/*
 * storybridge inspector, Revisions panel (see docs/INSPECTOR.md): each served presentation's
 * revision, the earlier ones kept on disk, and Rollback / Unpin buttons that call
 * /__storybridge/revisions (what `storybridge rollback ID` and `unpin ID` do). Everything from
 * the host is rendered with textContent, never as markup.
 */
(function () {
  'use strict';

  var POLL_MS = 5000;
  var token = new URLSearchParams(location.search).get('token') || '';
  var BASE = '/__storybridge/revisions';
  var panel = document.getElementById('revisions');
  var list = document.getElementById('revision-decks');
  var message = document.getElementById('revision-message');
  var busy = false;
  var state = { presentations: null, last: null };
  window.__inspectorRevisions = state;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function url(path) { return BASE + path + '?token=' + encodeURIComponent(token); }

  function label(revision, packageRevision) {
    return 'revision ' + revision + (packageRevision === null || packageRevision === undefined ? '' : ' (package ' + packageRevision + ')');
  }

  function say(text, isError) {
    message.textContent = text || '';
    message.className = isError ? 'error-line' : 'dim';
    message.hidden = !text;
  }

  function button(text, action, id, title) {
    var node = el('button', 'revision-action', text);
    node.type = 'button';
    node.title = title;
    node.dataset.action = action;
    node.dataset.presentation = String(id);
    node.addEventListener('click', function () { act(action, id); });
    return node;
  }

  function render(presentations) {
    state.presentations = presentations;
    list.textContent = '';
    if (!presentations.length) { list.appendChild(el('p', 'empty', 'No presentation in the library.')); return; }
    presentations.forEach(function (p) {
      var card = el('div', 'revision-deck');
      card.dataset.presentation = String(p.id);
      var head = el('div', 'revision-head');
      head.appendChild(el('strong', null, p.id + ' ' + p.name));
      var served = el('span', 'revision-served', 'serves ' + label(p.revision, p.packageRevision));
      head.appendChild(served);
      if (p.pin) { head.appendChild(el('span', 'chip pinned', 'pinned')); }
      card.appendChild(head);
      var kept = el('div', 'revision-kept dim');
      kept.textContent = p.kept.length
        ? 'kept: ' + p.kept.map(function (k) { return label(k.revision, k.packageRevision); }).join(', ')
        : 'no earlier revision kept';
      card.appendChild(kept);
      var actions = el('div', 'revision-actions');
      var rollback = button('Rollback', 'rollback', p.id, 'serve the newest kept revision older than this one again, and pin it');
      rollback.disabled = !p.canRollBack || busy;
      actions.appendChild(rollback);
      if (p.pin) {
        var unpin = button('Unpin', 'unpin', p.id, 'let sync install newer revisions of this presentation again');
        unpin.disabled = busy;
        actions.appendChild(unpin);
      }
      card.appendChild(actions);
      list.appendChild(card);
    });
  }

  function refresh() {
    return fetch(url(''), { cache: 'no-store' }).then(function (response) {
      if (response.status === 404) { panel.hidden = true; return null; }
      if (!response.ok) { throw new Error('HTTP ' + response.status); }
      return response.json().then(function (body) {
        panel.hidden = false;
        render(body.presentations || []);
        return body;
      });
    }).catch(function (error) { say('revisions: ' + error.message, true); });
  }

  function act(action, id) {
    if (busy) { return; }
    busy = true;
    say(action === 'rollback' ? 'rolling back presentation ' + id + '…' : 'unpinning presentation ' + id + '…', false);
    fetch(url('/' + id + '/' + action), { method: 'POST', cache: 'no-store' }).then(function (response) {
      if (!response.ok) {
        return response.text().then(function (text) { throw new Error(text || 'HTTP ' + response.status); });
      }
      return response.json().then(function (body) {
        state.last = body;
        if (action === 'rollback') {
          say('presentation ' + id + ' serves ' + label(body.to.revision, body.to.packageRevision) + ' again (was ' +
            label(body.from.revision, body.from.packageRevision) + '), in ' + body.ms.toFixed(1) +
            ' ms; its viewers reload at their next slide change', false);
        } else {
          say('presentation ' + id + ' is no longer pinned: the next sync installs what the service offers', false);
        }
      });
    }).catch(function (error) {
      state.last = { error: error.message };
      say(error.message, true);
    }).then(function () {
      busy = false;
      return refresh();
    });
  }

  refresh();
  setInterval(function () { if (!busy) { refresh(); } }, POLL_MS);
}());
