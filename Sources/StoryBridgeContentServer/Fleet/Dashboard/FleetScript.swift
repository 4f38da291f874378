/// `/fleet/static/fleet.js` (docs/design/FLEET.md §6): keeps the overview's table live from
/// `EventSource('/fleet/events')` without reloading the page. It builds rows with `textContent`
/// only (names and labels come from kiosks), applies the query's `state` and `label` filters as
/// the server does, updates the "ago" texts every second, and goes to the login form when the
/// stream says `logout`. It counts the page's loads in `sessionStorage` (`window.__fleetLoads`).
///
/// With `?bench=1` in the page's address (`storybridge-bench fleet`, docs/design/FLEET.md §11) it
/// also appends, for each row a `rows` event brought, `{id, lastBeatAt, at}` to
/// `window.__fleetApplied` once the table shows it (`at`: `Date.now()` then); the benchmark drains
/// the array. Without it the array does not exist and nothing else differs.
enum FleetScript {
    /// The script's text.
    /// `age(seconds)`: "42 s", "5 min", "3 h", "2 d"; shared by `fleet.js` and `kiosk.js`.
    static let ageFunction = #"""
        function age(seconds) {
          var s = Math.max(0, Math.floor(seconds));
          if (s < 60) { return s + ' s'; }
          if (s < 3600) { return Math.floor(s / 60) + ' min'; }
          if (s < 86400) { return Math.floor(s / 3600) + ' h'; }
          return Math.floor(s / 86400) + ' d';
        }
        """#

    static let source = #"""
        (function () {
          'use strict';
          var loads = Number(sessionStorage.getItem('fleetLoads') || '0') + 1;
          sessionStorage.setItem('fleetLoads', String(loads));
          window.__fleetLoads = loads;
          var table = document.getElementById('kiosks');
          var summary = document.getElementById('summary');
          if (!table || !summary) { return; }
          var body = table.tBodies[0];
          var states = null;
          var labels = {};
          new URLSearchParams(location.search).forEach(function (value, name) {
            if (name === 'state') {
              states = states || {};
              value.split(',').forEach(function (s) { if (s) { states[s] = true; } });
            } else if (name === 'label') {
              var colon = value.indexOf(':');
              if (colon > 0) { labels[value.slice(0, colon)] = value.slice(colon + 1); }
            }
          });
          var bench = new URLSearchParams(location.search).get('bench') === '1';
          if (bench) { window.__fleetApplied = []; }
          var kiosks = {};
          function admits(k) {
            if (states ? !states[k.presence] : k.presence === 'revoked') { return false; }
            return Object.keys(labels).every(function (key) { return (k.labels || {})[key] === labels[key]; });
          }
          \#(FleetScript.ageFunction)
          function ago(text) { return (Date.now() - Date.parse(text)) / 1000; }
          function cells(k) {
            var labelText = Object.keys(k.labels || {}).sort().map(function (key) { return key + '=' + k.labels[key]; }).join(' ');
            var decks = (k.decks || []).map(function (d) { return d.id + ' r' + (d.revision === null ? '?' : d.revision); }).join(', ');
            var queue = '';
            if (k.analytics) {
              queue = String(k.analytics.queued);
              if (k.analytics.oldestAgeSeconds !== null) { queue += ' · oldest ' + age(k.analytics.oldestAgeSeconds); }
            }
            var sync = '';
            if (k.sync && k.sync.lastRunAt) {
              sync = (k.sync.result || '?') + (k.sync.exitStatus === null ? '' : ' ' + k.sync.exitStatus) + ' · ' + age(ago(k.sync.lastRunAt)) + ' ago';
            }
            var plays = '';
            if (k.schedule) {
              plays = (k.schedule.presentation === null || k.schedule.presentation === undefined ? 'nothing'
                : k.schedule.presentation + (k.schedule.slide ? ', slide ' + k.schedule.slide : '')) + ' · ' + k.schedule.source
                + (k.schedule.installed === false ? ' · not installed' : '');
            }
            return [k.presence + ' · ' + age(ago(k.since)), k.name, labelText, decks, plays, queue, sync, k.version || '',
                    k.lastBeatAt ? age(ago(k.lastBeatAt)) + ' ago' : 'never'];
          }
          function render() {
            var shown = Object.keys(kiosks).map(function (id) { return kiosks[id]; }).filter(admits);
            shown.sort(function (a, b) { return a.name < b.name ? -1 : a.name > b.name ? 1 : (a.id < b.id ? -1 : 1); });
            var fresh = document.createElement('tbody');
            var counts = {};
            shown.forEach(function (k) {
              counts[k.presence] = (counts[k.presence] || 0) + 1;
              var row = document.createElement('tr');
              row.dataset.id = k.id;
              row.dataset.presence = k.presence;
              cells(k).forEach(function (text, index) {
                var cell = document.createElement('td');
                if (index === 1) {
                  var link = document.createElement('a');
                  link.href = '/fleet/kiosks/' + encodeURIComponent(k.id);
                  link.textContent = text;
                  cell.appendChild(link);
                } else {
                  cell.textContent = text;
                }
                row.appendChild(cell);
              });
              fresh.appendChild(row);
            });
            table.replaceChild(fresh, body);
            body = fresh;
            var parts = ['new', 'online', 'late', 'offline', 'revoked'].filter(function (s) { return counts[s]; })
              .map(function (s) { return counts[s] + ' ' + s; });
            summary.textContent = parts.length ? parts.join(' · ') : 'no kiosks';
          }
          var source = new EventSource('/fleet/events');
          source.addEventListener('snapshot', function (event) {
            kiosks = {};
            JSON.parse(event.data).kiosks.forEach(function (k) { kiosks[k.id] = k; });
            render();
            window.__fleetReady = true;
          });
          source.addEventListener('rows', function (event) {
            var changed = JSON.parse(event.data).kiosks;
            changed.forEach(function (k) { kiosks[k.id] = k; });
            render();
            if (bench) {
              var at = Date.now();
              changed.forEach(function (k) { window.__fleetApplied.push({ id: k.id, lastBeatAt: k.lastBeatAt, at: at }); });
            }
          });
          source.addEventListener('logout', function () {
            source.close();
            location.href = '/fleet/login';
          });
          setInterval(render, 1000);
        })();
        """#
}
