// The first script of every case in the injection corpus. It notes whether the host's client ran
// before it, and asks the host for its app info (a question only the host answers, so the answer
// proves the bridge socket works) through the client's own request call.
(function () {
  var probe = { clientFirst: !!window.__storybridge, answer: null };
  window.__injectionProbe = probe;
  if (!window.__storybridge) { return; }
  window.__storybridge.request('getAppInfo', {}, function (answer) { probe.answer = answer; });
})();
