// The payment page's own script: live validation and formatting of the card form (with the rules of
// card-rules.mjs, which the gateway inlines before this file), the Bizum phone check, a guard against
// double submits, and, in a frame, the messages to the parent page. The page works without it: the
// server checks the same rules, and the last page links url_ok / url_ko with target="_top".
// Plain ES2019; no imports, no network, no storage.

function pgMessages() {
  var el = document.getElementById('pg-messages');
  try {
    return el ? JSON.parse(el.textContent || '{}') : {};
  } catch (e) {
    return {};
  }
}

function pgSetError(form, name, key, messages) {
  var input = form.querySelector('[name="' + name + '"]');
  var box = document.getElementById('err-' + name);
  if (!input || !box) return;
  var text = key ? messages[key] || key : '';
  box.textContent = text;
  if (key) {
    input.setAttribute('aria-invalid', 'true');
    input.parentElement.classList.add('invalid');
  } else {
    input.removeAttribute('aria-invalid');
    input.parentElement.classList.remove('invalid');
  }
}

function pgGuardSubmit(form, messages) {
  form.addEventListener('submit', function (ev) {
    if (ev.defaultPrevented) return;
    if (form.getAttribute('data-sent') === '1') {
      ev.preventDefault();
      return;
    }
    form.setAttribute('data-sent', '1');
    var button = form.querySelector('button[type="submit"]:not([name])');
    if (button && messages['card.processing']) {
      button.setAttribute('aria-busy', 'true');
      button.textContent = messages['card.processing'];
    }
  });
}

function pgCardForm(form, messages) {
  var todayAttr = (form.getAttribute('data-today') || '').split('-');
  var today = { year: Number(todayAttr[0]), month: Number(todayAttr[1]) };
  var number = form.querySelector('[name="number"]');
  var expiry = form.querySelector('[name="expiry"]');
  var cvv = form.querySelector('[name="cvv"]');
  var holder = form.querySelector('[name="holder"]');
  var brands = document.getElementById('pg-brands');
  var cvvHint = document.getElementById('cvv-hint');
  var touched = {};

  function brand() {
    return checkNumber(number.value, true).brand;
  }

  function showBrand() {
    var b = brand();
    if (brands) brands.setAttribute('data-brand', b ? b.id : '');
    var len = cvvLength(b);
    cvv.setAttribute('maxlength', String(len || 4));
    if (cvvHint) cvvHint.textContent = messages[len === 4 ? 'card.cvv_hint4' : 'card.cvv_hint3'] || '';
  }

  function validate(name, partial) {
    var r;
    if (name === 'number') r = checkNumber(number.value, partial);
    else if (name === 'expiry') r = checkExpiry(expiry.value, today, partial);
    else if (name === 'cvv') r = checkCvv(cvv.value, brand(), partial);
    else r = checkHolder(holder.value, partial);
    pgSetError(form, name, r.error, messages);
    return !r.error;
  }

  number.addEventListener('input', function () {
    var digits = cardDigits(number.value).replace(/[^0-9]/g, '').slice(0, 19);
    var formatted = formatCardNumber(digits);
    if (formatted !== number.value) number.value = formatted;
    showBrand();
    validate('number', !touched.number);
    if (touched.cvv && cvv.value) validate('cvv', false);
  });
  expiry.addEventListener('input', function (ev) {
    var deleting = ev && ev.inputType && ev.inputType.indexOf('delete') === 0;
    if (!deleting) {
      var f = formatExpiry(expiry.value);
      if (f !== expiry.value) expiry.value = f;
    }
    validate('expiry', !touched.expiry && expiry.value.replace(/[^0-9]/g, '').length < 4);
  });
  cvv.addEventListener('input', function () {
    var v = cvv.value.replace(/[^0-9]/g, '');
    if (v !== cvv.value) cvv.value = v;
    validate('cvv', !touched.cvv);
  });
  holder.addEventListener('input', function () {
    validate('holder', !touched.holder);
  });
  [holder, number, expiry, cvv].forEach(function (input) {
    input.addEventListener('blur', function (ev) {
      if (input.value === '' && !touched[input.name]) return;
      // leaving the field for the pay button: the submit check runs instead (a message appearing
      // now would move the button away from under the pointer)
      var next = ev.relatedTarget;
      if (next && next.getAttribute && next.getAttribute('type') === 'submit') return;
      touched[input.name] = true;
      validate(input.name, false);
    });
  });

  form.addEventListener('submit', function (ev) {
    var names = ['holder', 'number', 'expiry', 'cvv'];
    var firstBad = null;
    names.forEach(function (n) {
      touched[n] = true;
      if (!validate(n, false) && !firstBad) firstBad = n;
    });
    var summary = document.getElementById('err-form');
    if (firstBad) {
      ev.preventDefault();
      if (summary) summary.textContent = messages['err.form'] || '';
      form.querySelector('[name="' + firstBad + '"]').focus();
    } else if (summary) {
      summary.textContent = '';
    }
  });
  showBrand();
}

function pgPhoneForm(form, messages) {
  var phone = form.querySelector('[name="phone"]');
  function ok() {
    return /^(?:\+34|0034)?[67][0-9]{8}$/.test(phone.value.replace(/[\s\-.()]/g, ''));
  }
  phone.addEventListener('blur', function (ev) {
    var next = ev.relatedTarget;
    if (next && next.getAttribute && next.getAttribute('type') === 'submit') return;
    if (phone.value !== '') pgSetError(form, 'phone', ok() ? null : 'err.phone.invalid', messages);
  });
  form.addEventListener('submit', function (ev) {
    if (!ok()) {
      ev.preventDefault();
      pgSetError(form, 'phone', 'err.phone.invalid', messages);
      phone.focus();
    }
  });
}

// ---- in a frame: tell the parent page the height and the outcome (docs/pages.md) -----------------
// The messages carry no secret (order uuid, status, amounts), so they are posted to any parent origin
// ('*'): the parent's origin is not known to the page. Listeners check event.origin is the gateway's.

function pgPost(message) {
  if (window.parent === window) return;
  try {
    window.parent.postMessage(message, '*');
  } catch (e) {
    // a parent that went away: nothing to tell
  }
}

function pgFrame() {
  if (window.parent === window) return;
  var main = document.querySelector('main');
  var order = main ? main.getAttribute('data-order') : null;
  var last = -1;
  function height() {
    var h = Math.ceil(Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0));
    if (h === last) return;
    last = h;
    pgPost({ type: 'paygate:height', height: h, order_uuid: order });
  }
  height();
  window.addEventListener('load', height);
  window.addEventListener('resize', height);
  if (typeof ResizeObserver === 'function' && document.body) new ResizeObserver(height).observe(document.body);
}

/** The end of the flow: post the outcome, then send the chosen window to url_ok / url_ko. */
function pgLeave() {
  var data = document.getElementById('pg-outcome');
  var link = document.getElementById('pg-leave');
  if (!data || !link) return;
  var outcome;
  try {
    outcome = JSON.parse(data.textContent || '{}');
  } catch (e) {
    return;
  }
  pgPost(outcome);
  var target = link.getAttribute('data-target') || 'self';
  var win = target === 'top' ? window.top : target === 'parent' ? window.parent : window;
  // a moment for the parent's listener to handle the outcome before its page is replaced
  setTimeout(function () {
    try {
      win.location.href = link.href;
    } catch (e) {
      // the browser refused to navigate that window: the visible link stays for the customer
    }
  }, window.parent === window ? 0 : 250);
}

(function () {
  pgFrame();
  pgLeave();
  var messages = pgMessages();
  var forms = document.querySelectorAll('form[data-form]');
  for (var i = 0; i < forms.length; i++) {
    var form = forms[i];
    var kind = form.getAttribute('data-form');
    if (kind === 'card') pgCardForm(form, messages);
    if (kind === 'phone') pgPhoneForm(form, messages);
    pgGuardSubmit(form, messages);
  }
  document.documentElement.classList.add('js');
})();
