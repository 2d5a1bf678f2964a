// The page's behaviour: the check form, the results, the account view. Every string that
// comes from a server or a target is written with textContent, never parsed as HTML: a server
// named "<img src=x onerror=...>" shows as those characters.

import { call_api } from './api.js';
import * as account from './account.js';

const by_id = (id) => document.getElementById(id);

// -- reading the Server field ---------------------------------------------------

/// Splits what was typed into host and port: "host", "host:port", "[v6]", "[v6]:port", or
/// a bare IPv6 address. Returns {host, port} (port null when not given) or {error}.
export function parse_server(text) {
  const value = text.trim();
  if (value === '')
    return { error: 'Type the address of a server, for example play.example.com.' };
  let host = value;
  let port_text = null;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0)
      return { error: 'An IPv6 address in brackets needs its closing "]".' };
    host = value.slice(1, end);
    const rest = value.slice(end + 1);
    if (rest !== '') {
      if (!rest.startsWith(':'))
        return { error: 'After "]" only ":port" may follow.' };
      port_text = rest.slice(1);
    }
  } else if (value.split(':').length === 2) {
    [host, port_text] = value.split(':');
  }
  if (host === '')
    return { error: 'The host is missing before the port.' };
  let port = null;
  if (port_text !== null) {
    if (!/^[0-9]{1,5}$/.test(port_text) || Number(port_text) < 1 || Number(port_text) > 65535)
      return { error: 'The port must be a number from 1 to 65535.' };
    port = Number(port_text);
  }
  return { host, port };
}

// -- errors in words a player understands ----------------------------------------

const error_titles = {
  invalid_input: 'That does not look like a server address.',
  forbidden_target: 'netherscope does not check private or local addresses.',
  unauthorized: 'This API key is unknown or was revoked.',
  quota_exhausted: 'This month\'s checks are used up.',
  target_rate_limited: 'This server was asked too often in the last minute.',
  upstream_status: 'The server answered, but with an error.',
  upstream_failure: 'The server could not be reached.',
  upstream_invalid_answer: 'The server answered, but not with a join answer the game could use.',
  upstream_timeout: 'The server did not answer in time.',
  unavailable: 'netherscope is busy or restarting. Try again in a moment.',
  payload_too_large: 'That request is too large.',
  not_found: 'netherscope does not know that request.',
  method_not_allowed: 'netherscope does not accept that request.',
  unsupported_media_type: 'netherscope does not accept that request.',
  internal: 'Something went wrong inside netherscope.',
};

const error_hints = {
  upstream_failure: 'It may be offline, or its port is closed or blocked by a firewall.',
  upstream_timeout: 'It may be overloaded, or a firewall drops the connection silently.',
};

/// Whole seconds as words: "45 seconds", "3 minutes", "2 days".
function wait_words(seconds) {
  if (seconds < 90)
    return `${seconds} second${seconds === 1 ? '' : 's'}`;
  if (seconds < 5400)
    return `${Math.round(seconds / 60)} minutes`;
  if (seconds < 129600)
    return `${Math.round(seconds / 3600)} hours`;
  return `${Math.round(seconds / 86400)} days`;
}

/// What the page shows for a failed call: a title in plain words, the detail the service
/// gave, and the machine code to quote when asking for help.
export function describe_error(reply) {
  if (reply.network_error !== null)
    return { title: 'netherscope could not be reached.',
             detail: 'Check your connection and try again.', code: 'network_error' };
  const body = reply.body && typeof reply.body === 'object' ? reply.body : {};
  const code = typeof body.code === 'string' ? body.code : `http_${reply.status}`;
  const title = error_titles[code] || `netherscope answered with HTTP status ${reply.status}.`;
  const parts = [];
  if (typeof body.error === 'string') {
    parts.push(body.error.endsWith('.') ? body.error : `${body.error}.`);
  } else if (body.error && typeof body.error === 'object') {
    // The target's own non-2xx answer: its status, and the NetherNet error when it sent one.
    const e = body.error;
    let text = `It answered HTTP ${e.httpStatus}`;
    if (e.nethernetError !== undefined && e.nethernetError !== null)
      text += ` with NetherNet error ${e.nethernetError}${e.reason ? ` (${e.reason})` : ''}`;
    else if (typeof e.body === 'string' && e.body.trim() !== '')
      text += `: ${e.body.trim().slice(0, 200)}`;
    parts.push(`${text}.`);
  }
  if (error_hints[code])
    parts.push(error_hints[code]);
  if (reply.retry_after !== null && reply.retry_after > 0)
    parts.push(`Try again in ${wait_words(reply.retry_after)}.`);
  return { title, detail: parts.join(' '), code, request_id: reply.request_id };
}

/// Fills an alert box (title, detail, code, and the request id to quote when asking for
/// help) and shows it; the role="alert" makes screen readers announce it.
function show_error(prefix, error) {
  by_id(`${prefix}-title`).textContent = error.title;
  by_id(`${prefix}-detail`).textContent = error.detail;
  by_id(`${prefix}-detail`).hidden = error.detail === '';
  by_id(`${prefix}-code`).textContent = error.code;
  by_id(`${prefix}-request-id`).textContent = error.request_id || '';
  by_id(`${prefix}-request`).hidden = !error.request_id;
  by_id(prefix).hidden = false;
}

function hide_error(prefix) {
  by_id(prefix).hidden = true;
}

// -- busy buttons ---------------------------------------------------------------

/// Marks a button as working (spinner, label, disabled) or restores it.
function set_busy(button, busy, label) {
  const text = button.querySelector('.label') || button;
  if (busy) {
    button.dataset.idleLabel = text.textContent;
    text.textContent = label;
    button.setAttribute('aria-busy', 'true');
  } else {
    text.textContent = button.dataset.idleLabel || text.textContent;
    button.removeAttribute('aria-busy');
  }
}

// -- quota -------------------------------------------------------------------------

const number_format = new Intl.NumberFormat('en');

/// "1,998 of 2,000 status checks left this month for your address; resets on 1 December."
export function quota_sentence(quota, kind) {
  const what = kind === 'offer' ? 'offers' : 'status checks';
  const whose = quota.scope === 'key' ? 'your key' : 'your address';
  let text = `${number_format.format(quota.remaining)} of ${number_format.format(quota.limit)} `
             + `${what} left this month for ${whose}`;
  if (quota.reset > 0) {
    const date = new Date(quota.reset * 1000).toLocaleDateString(
      'en', { day: 'numeric', month: 'long', timeZone: 'UTC' });
    text += `; resets on ${date}`;
  }
  return `${text}.`;
}

function show_quota(reply, kind) {
  const element = by_id('quota');
  if (!reply.quota) {
    element.hidden = true;
    return;
  }
  element.textContent = quota_sentence(reply.quota, kind);
  element.hidden = false;
}

// -- results -----------------------------------------------------------------------

function fill_list(list, items) {
  list.replaceChildren();
  for (const item of items) {
    const li = document.createElement('li');
    li.textContent = item;
    list.append(li);
  }
  list.hidden = items.length === 0;
}

/// Text for a value that may be missing or of the wrong type.
function text_of(value, fallback = 'not given') {
  if (value === undefined || value === null || value === '')
    return fallback;
  return String(value);
}

function render_status(body) {
  const info = body.info && typeof body.info === 'object' ? body.info : null;
  by_id('status-name').textContent = text_of(info && info.name);
  let version = text_of(info && info.version);
  if (info && Number.isInteger(info.protocol))
    version += ` (protocol ${info.protocol})`;
  by_id('status-version').textContent = version;
  by_id('status-players').textContent =
    info && Number.isInteger(info.players) && Number.isInteger(info.maxPlayers)
      ? `${info.players} of ${info.maxPlayers}` : text_of(info && info.players);
  let tls = body.tls ? 'HTTPS (TLS)' : 'Plain HTTP, no TLS';
  if (body.tls && body.certificate && body.certificate.trusted === false)
    tls += ', certificate not trusted';
  by_id('status-tls').textContent = tls;
  const note = by_id('status-note');
  if (info === null && !body.infoError) {
    note.textContent = 'The server answered its join status without details; servers with '
                       + 'LAN visibility off do that, and players can still join.';
    note.hidden = false;
  } else if (body.infoError) {
    note.textContent = `The server's status details could not be read: ${body.infoError}`;
    note.hidden = false;
  } else {
    note.hidden = true;
  }
  fill_list(by_id('status-warnings'), Array.isArray(body.warnings) ? body.warnings : []);
  by_id('status-result').hidden = false;
}

const column_names = ['Address', 'Port', 'Type', 'Transport', 'Scope'];

function candidate_row(candidate) {
  const row = document.createElement('tr');
  const cell = (text, css) => {
    const td = document.createElement('td');
    td.textContent = text_of(text, '');
    // The column's name, which the narrow layout shows beside each value.
    td.dataset.label = column_names[row.children.length];
    if (css)
      td.className = css;
    row.append(td);
    return td;
  };
  cell(candidate.address, 'address');
  cell(candidate.port, 'number');
  cell(candidate.type);
  cell(candidate.transport);
  const scope_cell = cell('');
  const scope = document.createElement('span');
  scope.className = candidate.usableByPlayers ? 'scope public' : 'scope';
  scope.textContent = text_of(candidate.scope, 'unknown');
  if (candidate.usableByPlayers === false && candidate.scope === 'public')
    scope.title = 'public, but not usable by players (not UDP, or not the data channel\'s component)';
  scope_cell.append(scope);
  return row;
}

function render_offer(body) {
  const candidates = Array.isArray(body.candidates) ? body.candidates : [];
  const rows = by_id('candidate-rows');
  rows.replaceChildren(...candidates.map(candidate_row));
  const usable = candidates.filter((c) => c.usableByPlayers === true).length;
  const summary = by_id('offer-summary');
  if (body.exhausted) {
    summary.textContent = 'The server answered without any candidate: all its UDP ports for '
                          + 'new players may be in use. Try again in a minute.';
  } else if (usable > 0) {
    summary.textContent = `${candidates.length} candidate${candidates.length === 1 ? '' : 's'}; `
                          + `${usable} can be reached by players on the Internet.`;
  } else {
    summary.textContent = `${candidates.length} candidate${candidates.length === 1 ? '' : 's'}, `
                          + 'and none that players on the Internet can reach.';
  }
  summary.className = usable > 0 ? 'summary good' : 'summary bad';
  by_id('candidates').parentElement.hidden = candidates.length === 0;
  const warnings = Array.isArray(body.warnings) ? body.warnings : [];
  fill_list(by_id('offer-warnings'), warnings);
  by_id('offer-warnings-title').hidden = warnings.length === 0;
  const meta = [];
  meta.push(body.tls ? 'Sent over HTTPS.' : 'Sent over plain HTTP.');
  if (body.identity && typeof body.identity === 'object')
    meta.push(body.identity.verified ? 'The server\'s identity signature checks out.'
                                     : 'The server\'s identity could not be verified.');
  if (body.cached)
    meta.push('This answer is from the last two minutes\' cache.');
  by_id('offer-meta').textContent = meta.join(' ');
  by_id('offer-result').hidden = false;
}

// -- the check form ------------------------------------------------------------------

/// The key the page holds while it is open; null when none. Never stored anywhere else.
let credential = null;
let running = false;
/// The Server field's value the results on show belong to.
let results_for = null;

async function run_check(action) {
  if (running)
    return;
  hide_error('error');
  // A status and an offer of one server show together; a check of another clears both.
  const typed = by_id('server').value.trim();
  if (typed !== results_for) {
    by_id('status-result').hidden = true;
    by_id('offer-result').hidden = true;
  } else {
    by_id(action === 'offer' ? 'offer-result' : 'status-result').hidden = true;
  }
  results_for = typed;
  const target = parse_server(typed);
  if (target.error) {
    show_error('error', { title: error_titles.invalid_input, detail: target.error,
                          code: 'invalid_input' });
    by_id('server').setAttribute('aria-invalid', 'true');
    by_id('server').focus();
    return;
  }
  by_id('server').removeAttribute('aria-invalid');
  running = true;
  const buttons = [by_id('status-button'), by_id('offer-button')];
  const button = action === 'offer' ? buttons[1] : buttons[0];
  for (const b of buttons)
    b.disabled = true;
  set_busy(button, true, action === 'offer' ? 'Sending offer…' : 'Checking…');
  const progress = by_id('progress');
  progress.textContent = action === 'offer'
    ? 'Sending a WebRTC offer; a server may take up to 20 seconds to answer.'
    : 'Asking the server for its join status.';
  progress.hidden = false;
  let reply;
  const headers = account.check_headers(credential);
  if (action === 'offer') {
    const json = { host: target.host };
    if (target.port !== null)
      json.port = target.port;
    reply = await call_api('POST', '/api/offer', { headers, json });
  } else {
    const query = new URLSearchParams({ host: target.host });
    if (target.port !== null)
      query.set('port', String(target.port));
    reply = await call_api('GET', `/api/info?${query}`, { headers });
  }
  progress.hidden = true;
  set_busy(button, false);
  for (const b of buttons)
    b.disabled = false;
  running = false;
  show_quota(reply, action);
  if (reply.status === 200 && reply.body && reply.body.ok === true) {
    if (action === 'offer')
      render_offer(reply.body);
    else
      render_status(reply.body);
  } else {
    show_error('error', describe_error(reply));
  }
}

// -- the account view ----------------------------------------------------------------

function usage_row(label, usage) {
  const row = document.createElement('tr');
  for (const value of [label, usage.used, usage.limit, usage.remaining]) {
    const td = document.createElement('td');
    if (typeof value === 'number') {
      td.textContent = number_format.format(value);
      td.className = 'number';
    } else {
      td.textContent = text_of(value);
    }
    row.append(td);
  }
  return row;
}

function render_account(body) {
  by_id('account-login').textContent = `Signed in as ${text_of(body.login, 'unknown')}`;
  const usage = body.usage && typeof body.usage === 'object' ? body.usage : {};
  const rows = [];
  if (usage.info)
    rows.push(usage_row('Status checks', usage.info));
  if (usage.offer)
    rows.push(usage_row('Offers', usage.offer));
  by_id('usage-rows').replaceChildren(...rows);
  by_id('usage-caption').textContent = body.month
    ? `Usage in ${body.month} (UTC)` : 'Usage this month';
  by_id('account-view').hidden = false;
  by_id('account-intro').hidden = true;
  const header_link = by_id('signin-link');
  header_link.textContent = `Signed in as ${text_of(body.login, 'unknown')}`;
  header_link.href = '#account';
}

function account_message(text) {
  by_id('account-message').textContent = text;
}

function forget_account() {
  credential = null;
  by_id('account-view').hidden = true;
  by_id('account-intro').hidden = false;
  const header_link = by_id('signin-link');
  header_link.textContent = 'Sign in with GitHub';
  header_link.href = account.sign_in_url;
  by_id('new-key').hidden = true;
  by_id('new-key-value').textContent = '';
  by_id('revoke-confirm').hidden = true;
}

/// Runs one account call with its button busy; returns the reply, or null after showing the
/// error (a 401 also forgets the key: it no longer opens anything).
async function account_call(button, busy_label, call) {
  hide_error('account-error');
  account_message('');
  button.disabled = true;
  set_busy(button, true, busy_label);
  const reply = await call();
  set_busy(button, false);
  button.disabled = false;
  if (reply.status === 200 && reply.body && reply.body.ok === true)
    return reply;
  show_error('account-error', describe_error(reply));
  if (reply.status === 401)
    forget_account();
  return null;
}

async function use_key(event) {
  event.preventDefault();
  const input = by_id('api-key');
  const key = input.value.trim();
  if (key === '') {
    show_error('account-error', { title: 'Paste your API key first.',
                                  detail: 'Sign in with GitHub to get one.',
                                  code: 'invalid_input' });
    input.focus();
    return;
  }
  const candidate = account.key_credential(key);
  const reply = await account_call(by_id('key-button'), 'Opening…',
                                   () => account.load_account(candidate));
  // The field is cleared either way: the key lives only in this module's variable.
  input.value = '';
  if (!reply)
    return;
  credential = candidate;
  by_id('new-key').hidden = true;
  render_account(reply.body);
  account_message('Your checks now count against this key.');
}

async function rotate_key() {
  const reply = await account_call(by_id('rotate-button'), 'Issuing…',
                                   () => account.issue_new_key(credential));
  if (!reply)
    return;
  if (typeof reply.body.key === 'string') {
    credential = account.key_credential(reply.body.key);
    by_id('new-key-value').textContent = reply.body.key;
    by_id('new-key').hidden = false;
  }
  render_account(reply.body);
}

async function revoke_current_key() {
  by_id('revoke-confirm').hidden = true;
  const reply = await account_call(by_id('revoke-button'), 'Revoking…',
                                   () => account.revoke_key(credential));
  if (!reply)
    return;
  forget_account();
  account_message('The key is revoked and no longer works. Sign in again for a new one.');
  by_id('account-title').focus();
}

// -- wiring ------------------------------------------------------------------------------

function start() {
  by_id('check-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const action = event.submitter && event.submitter.dataset.action === 'offer'
      ? 'offer' : 'status';
    run_check(action);
  });
  by_id('key-form').addEventListener('submit', use_key);
  by_id('rotate-button').addEventListener('click', rotate_key);
  by_id('revoke-button').addEventListener('click', () => {
    by_id('revoke-confirm').hidden = false;
    by_id('revoke-yes').focus();
  });
  by_id('revoke-no').addEventListener('click', () => {
    by_id('revoke-confirm').hidden = true;
    by_id('revoke-button').focus();
  });
  by_id('revoke-yes').addEventListener('click', revoke_current_key);
  by_id('forget-button').addEventListener('click', () => {
    forget_account();
    account_message('This page no longer holds the key; it still works elsewhere.');
    by_id('api-key').focus();
  });
  by_id('account-title').tabIndex = -1;
  for (const link of document.querySelectorAll('a[href="/auth/github/login"]'))
    link.href = account.sign_in_url;
}

start();
