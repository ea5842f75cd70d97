// The embedded card form's loader, served at /js/v1-iframe.js for merchant pages (decisions §10). It
// defines the global `paylands` and renders the gateway's card form in an iframe: the customer types the
// card there, on the gateway's origin, so the card never passes through the merchant's page. The
// iframe talks to the page with window.postMessage strings: `paylandsLoaded`, `validation: {...}`,
// `savedCard: {...}`, `error: {...}`.
// Plain ES2015 in one function scope; no dependencies, no storage, no network of its own.
(function () {
  'use strict';
  if (window.paylands && window.paylands.__paygate) return;

  var script = document.currentScript;
  /** The gateway's origin: where this script was loaded from (the configured public URL otherwise). */
  var GATEWAY = (function () {
    try {
      return new URL(script && script.src ? script.src : '__PAYGATE_PUBLIC_URL__').origin;
    } catch (e) {
      return '__PAYGATE_PUBLIC_URL__';
    }
  })();

  var state = { mode: 'production', frame: null, ready: false, pending: [] };

  function selfOrigin() {
    return window.location.origin && window.location.origin !== 'null' ? window.location.origin : '*';
  }

  /** A message to the page itself, in the iframe's format (problems found before the iframe exists). */
  function report(kind, data) {
    window.postMessage(kind + ': ' + JSON.stringify(data), selfOrigin());
  }

  function send(command) {
    if (!state.frame) {
      report('error', { message: 'paylands.initializate(customerToken, containerElementId) must be called first' });
      return;
    }
    if (!state.ready) {
      state.pending.push(command);
      return;
    }
    state.frame.contentWindow.postMessage(JSON.stringify({ paylands: command }), GATEWAY);
  }

  window.addEventListener('message', function (ev) {
    if (!state.frame || ev.source !== state.frame.contentWindow || ev.origin !== GATEWAY) return;
    if (ev.data === 'paylandsLoaded') {
      state.ready = true;
      var queued = state.pending;
      state.pending = [];
      for (var i = 0; i < queued.length; i++) send(queued[i]);
    }
  });

  window.paylands = {
    __paygate: true,
    /** 'sandbox' or 'production' (the default): which environment the customer token belongs to. */
    setMode: function (mode) {
      if (mode !== 'sandbox' && mode !== 'production') {
        report('error', { message: "paylands.setMode takes 'sandbox' or 'production'" });
        return;
      }
      state.mode = mode;
    },
    /** Shows the card form of the customer whose token POST /customer returned, inside the element. */
    initializate: function (customerToken, containerElementId) {
      var container = document.getElementById(containerElementId);
      if (!container) {
        report('error', { message: 'No element with id "' + containerElementId + '"' });
        return;
      }
      var lang = (document.documentElement.getAttribute('lang') || navigator.language || '').slice(0, 2).toLowerCase();
      var src =
        GATEWAY +
        (state.mode === 'sandbox' ? '/v1/sandbox' : '/v1') +
        '/card-form/' +
        encodeURIComponent(String(customerToken)) +
        '?origin=' +
        encodeURIComponent(selfOrigin()) +
        (lang ? '&lang=' + encodeURIComponent(lang) : '');
      var frame = document.createElement('iframe');
      frame.src = src;
      frame.title = 'Card';
      frame.setAttribute('referrerpolicy', 'origin');
      frame.style.border = '0';
      frame.style.width = '100%';
      frame.style.minWidth = '280px';
      frame.style.height = '440px';
      if (state.frame && state.frame.parentNode) state.frame.parentNode.removeChild(state.frame);
      state.frame = frame;
      state.ready = false;
      state.pending = [];
      container.appendChild(frame);
    },
    /** Checks the fields; the iframe answers `validation: {"cardPan":{"valid":…},"cardExpiryDate":{…},"cardCVV":{…}}`. */
    validate: function () {
      send('validate');
    },
    /** Stores the card for the customer; the iframe answers `savedCard: {...}` or `error: {"message":…}`. */
    storeSourceCard: function () {
      send('store');
    },
  };
})();
