// The embedded card form's own script, inside the gateway's iframe (decisions §10). It runs after
// card-rules.mjs and page.js (live validation and formatting of the fields), and talks to the merchant's
// page, and only to it, with postMessage strings:
//   to the page:   paylandsLoaded | validation: {...} | savedCard: {...} | error: {"message": ...}
//   from the page: {"paylands":"validate"} | {"paylands":"store"} (sent by /js/v1-iframe.js)
// The card goes from this frame to the gateway only (fetch to the same origin); the merchant's page
// receives the stored source (BIN and last 4), never the number or the CVV.

function pgCardFormFrame() {
  var root = document.documentElement;
  var parentOrigin = root.getAttribute('data-parent-origin');
  var form = document.querySelector('form[data-form="card"]');
  var messages = pgMessages();
  if (!parentOrigin || window.parent === window) return;

  function tell(kind, data) {
    window.parent.postMessage(data === undefined ? kind : kind + ': ' + JSON.stringify(data), parentOrigin);
  }

  var expired = root.getAttribute('data-state') === 'expired';
  if (expired || !form) {
    tell('error', { message: root.getAttribute('data-message') || messages['cardform.expired'] || 'expired' });
    return;
  }

  var todayAttr = (form.getAttribute('data-today') || '').split('-');
  var today = { year: Number(todayAttr[0]), month: Number(todayAttr[1]) };
  var field = function (name) {
    return form.querySelector('[name="' + name + '"]');
  };
  var busy = false;

  // nothing is ever submitted as a form: the page's commands drive this frame
  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
  });

  /** Checks every field, shows the problems, and says which of number, expiry and CVV are valid. */
  function check() {
    var number = checkNumber(field('number').value, false);
    var expiry = checkExpiry(field('expiry').value, today, false);
    var cvv = checkCvv(field('cvv').value, number.brand, false);
    var holder = checkHolder(field('holder').value, false);
    pgSetError(form, 'number', number.error, messages);
    pgSetError(form, 'expiry', expiry.error, messages);
    pgSetError(form, 'cvv', cvv.error, messages);
    pgSetError(form, 'holder', holder.error, messages);
    return {
      validation: { cardPan: { valid: !number.error }, cardExpiryDate: { valid: !expiry.error }, cardCVV: { valid: !cvv.error } },
      ok: !number.error && !expiry.error && !cvv.error && !holder.error,
    };
  }

  function store() {
    if (busy) return;
    var result = check();
    if (!result.ok) {
      tell('error', { message: messages['err.form'] || 'invalid' });
      return;
    }
    busy = true;
    form.setAttribute('aria-busy', 'true');
    var body = JSON.stringify({
      nonce: field('nonce').value,
      holder: field('holder').value,
      number: field('number').value,
      expiry: field('expiry').value,
      cvv: field('cvv').value,
    });
    fetch(form.getAttribute('data-action'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: body, credentials: 'omit', cache: 'no-store' })
      .then(function (res) {
        return res.text().then(function (text) {
          var parsed = null;
          try {
            parsed = JSON.parse(text);
          } catch (e) {
            parsed = null;
          }
          if (res.ok && parsed && parsed.source) {
            // the number and the CVV are not kept once the card is stored
            field('number').value = '';
            field('cvv').value = '';
            window.parent.postMessage('savedCard: ' + text, parentOrigin);
          } else {
            tell('error', { message: (parsed && parsed.error && parsed.error.message) || messages['error.server.text'] || 'error' });
          }
        });
      })
      .catch(function () {
        tell('error', { message: messages['error.server.text'] || 'error' });
      })
      .then(function () {
        busy = false;
        form.removeAttribute('aria-busy');
      });
  }

  window.addEventListener('message', function (ev) {
    if (ev.source !== window.parent || ev.origin !== parentOrigin || typeof ev.data !== 'string') return;
    var command = null;
    try {
      command = JSON.parse(ev.data).paylands;
    } catch (e) {
      return;
    }
    if (command === 'validate') tell('validation', check().validation);
    else if (command === 'store') store();
  });

  tell('paylandsLoaded');
}

pgCardFormFrame();
