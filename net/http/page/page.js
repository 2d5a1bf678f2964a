// The page's behaviour: the check form, the results, the account view. Every string that
// comes from a server or a target is written with textContent, never parsed as HTML: a server
// named "<img src=x onerror=...>" shows as those characters. The one exception is a MOTD's
// html, which the service writes from the server's text (core/motd): it is parsed in an inert
// document and only its text, line breaks and spans with the MOTD's classes are copied.

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

/// The path of a server's page (GET /server/{address}): the host, an IPv6 one in brackets
/// (%-encoded, as the path needs), and ":port" when one was typed other than 19132.
export function server_page_path(target) {
  const host = target.host.includes(':') ? `%5B${target.host}%5D` : target.host;
  const port = target.port !== null && target.port !== 19132 ? `:${target.port}` : '';
  return `/server/${encodeURI(host)}${port}`;
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
  // The service links a NetherNet error number it knows to its explanation.
  const explain = body.error && typeof body.error === 'object' ? explain_href(body.error.explain)
                                                               : null;
  if (reply.retry_after !== null && reply.retry_after > 0)
    parts.push(`Try again in ${wait_words(reply.retry_after)}.`);
  return { title, detail: parts.join(' '), code, request_id: reply.request_id, explain,
           explain_label: explain && body.error.nethernetError !== undefined
             ? `What NetherNet error ${body.error.nethernetError} means` : 'What this code means' };
}

/// The href of an explanation link the service gave, or null when it is not one: only paths
/// under /api/explain/ become links, so no server string can make a javascript: or off-site
/// link.
export function explain_href(value) {
  if (typeof value !== 'string' || !/^\/api\/explain\/[A-Za-z0-9_-]{1,40}$/.test(value))
    return null;
  return value;
}

/// A link that opens an explanation in the page (see open_explanation); without script, or
/// opened in a new tab, it shows the JSON.
function explain_link(href, text) {
  const link = document.createElement('a');
  link.href = href;
  link.className = 'explain-link';
  link.textContent = text;
  return link;
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
  const explain = by_id(`${prefix}-explain`);
  if (explain) {
    explain.replaceChildren();
    if (error.explain)
      explain.append(explain_link(error.explain, error.explain_label));
    explain.hidden = !error.explain;
  }
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
  // A check's headers show the offer quota, the scarcer of its two; a join counts offers.
  const what = ['offer', 'check', 'join'].includes(kind) ? 'offers' : 'status checks';
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

/// Shows a formatted MOTD ({raw, clean, html}) in element, in Bedrock's colours
/// (/motd.css), or fallback_text as plain text when there is none.
function show_motd(element, motd, fallback_text) {
  element.replaceChildren();
  if (!motd || typeof motd.html !== 'string' || motd.clean === '') {
    element.textContent = text_of(fallback_text);
    return;
  }
  const parsed = new DOMParser().parseFromString(`<body>${motd.html}</body>`, 'text/html');
  for (const node of parsed.body.childNodes) {
    if (node.nodeType === Node.TEXT_NODE) {
      element.append(node.textContent);
    } else if (node.nodeName === 'BR') {
      element.append(document.createElement('br'));
    } else if (node.nodeName === 'SPAN') {
      const span = document.createElement('span');
      const classes = node.className.split(' ').filter((c) => /^mc-[0-9a-z]$/.test(c));
      if (classes.length > 0)
        span.className = classes.join(' ');
      span.textContent = node.textContent;
      element.append(span);
    }
  }
}

/// The NetherNet half of a status: GET /api/info's result (the name, version, players and the
/// connection), or its error in words.
function render_nethernet(body) {
  const state = by_id('nethernet-state');
  const facts = by_id('nethernet-facts');
  if (!body || typeof body !== 'object' || body.ok !== true) {
    state.replaceChildren();
    if (body && typeof body === 'object') {
      // The service's own sentence, without the page's guesses of why a server is offline:
      // the server may well be online over RakNet.
      const error = describe_error({ status: 0, body, quota: null, retry_after: null,
                                     request_id: null, network_error: null });
      const detail = typeof body.error === 'string'
        ? `${body.error.replace(/\.$/, '')}.` : error.detail;
      state.append(`No answer to GET /v1/join: ${detail}`, ' ', code_element(error.code));
    } else {
      state.append('Not asked.');
    }
    state.className = 'transport-state bad';
    facts.hidden = true;
    by_id('status-note').hidden = true;
    fill_list(by_id('status-warnings'), []);
    return;
  }
  state.textContent = `Answered HTTP ${text_of(body.status, '2xx')}.`;
  state.className = 'transport-state good';
  facts.hidden = false;
  const info = body.info && typeof body.info === 'object' ? body.info : null;
  show_motd(by_id('status-name'), body.motd, info && info.name);
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
}

/// A machine code as the page shows it, for quoting.
function code_element(text) {
  const code = document.createElement('code');
  code.textContent = text;
  return code;
}

/// Why no pong came back, in words; the service's own sentence follows.
const raknet_failures = {
  no_listener: 'The host answered that nothing listens on this UDP port.',
  timeout: 'No answer to three pings within a second.',
  malformed_pong: 'Something answered from the server\'s address, but not with a status pong.',
  forbidden_target: 'Not pinged: netherscope does not check private or local addresses.',
  lookup_failed: 'The name did not resolve.',
  lookup_timeout: 'The name did not resolve in time.',
  unreachable: 'The ping could not be sent, or the network said the host cannot be reached.',
};

/// The codes of a RakNet status that /api/explain explains (the others are the API's own).
const explained_raknet_codes = ['no_listener', 'timeout', 'malformed_pong'];

/// The RakNet half of a status: the pong's MOTD, version, players and latency, or why none
/// came back.
function render_raknet(raknet) {
  const state = by_id('raknet-state');
  const facts = by_id('raknet-facts');
  state.replaceChildren();
  if (!raknet || typeof raknet !== 'object') {
    state.append('Not pinged.');
    state.className = 'transport-state';
    facts.hidden = true;
    fill_list(by_id('raknet-warnings'), []);
    return;
  }
  if (raknet.ok !== true) {
    const code = text_of(raknet.code, 'unknown');
    const words = raknet_failures[code] || 'No pong came back.';
    const detail = typeof raknet.error === 'string' && raknet.error !== '' ? ` ${raknet.error}` : '';
    state.append(`No pong. ${words}${detail}`, ' ', code_element(code));
    if (explained_raknet_codes.includes(code))
      state.append(' · ', explain_link(`/api/explain/${code}`, 'What this means'));
    state.className = 'transport-state bad';
    facts.hidden = true;
    fill_list(by_id('raknet-warnings'), []);
    return;
  }
  state.textContent = Number.isFinite(raknet.latencyMs)
    ? `Answered in ${ms_words(raknet.latencyMs)}.` : 'Answered.';
  state.className = 'transport-state good';
  facts.hidden = false;
  show_motd(by_id('raknet-motd'), raknet.motdFormatted, text_of(raknet.motdPlain, text_of(raknet.motd)));
  let version = text_of(raknet.version);
  if (Number.isInteger(raknet.protocol))
    version += ` (protocol ${raknet.protocol})`;
  by_id('raknet-version').textContent = version;
  by_id('raknet-players').textContent =
    Number.isInteger(raknet.players) && Number.isInteger(raknet.maxPlayers)
      ? `${raknet.players} of ${raknet.maxPlayers}` : text_of(raknet.players);
  by_id('raknet-latency').textContent =
    Number.isFinite(raknet.latencyMs) ? ms_words(raknet.latencyMs) : 'not measured';
  fill_list(by_id('raknet-warnings'), Array.isArray(raknet.warnings) ? raknet.warnings : []);
}

/// The one-line answer to "is it up?", from what each transport did.
export function online_words(nethernet_ok, raknet_ok) {
  if (nethernet_ok && raknet_ok)
    return { text: 'Online: NetherNet and RakNet both answered.', good: true };
  if (nethernet_ok)
    return { text: 'Online over NetherNet; RakNet did not answer.', good: true };
  if (raknet_ok)
    return { text: 'Online over RakNet only; NetherNet signalling did not answer.', good: true };
  return { text: 'Offline: neither NetherNet nor RakNet answered.', good: false };
}

/// Shows a Bedrock status: online or not, both transports side by side, and which players
/// can join. `status` is GET /api/status's body, or the same parts of a check.
function render_status(status) {
  const nethernet = status.nethernet && typeof status.nethernet === 'object' ? status.nethernet
                                                                             : null;
  const raknet = status.raknet && typeof status.raknet === 'object' ? status.raknet : null;
  const nethernet_ok = nethernet !== null && nethernet.ok === true;
  const raknet_ok = raknet !== null && raknet.ok === true;
  const online = online_words(nethernet_ok, raknet_ok);
  // The service's own word on being online stands, should the page read the parts otherwise.
  if (typeof status.online === 'boolean' && status.online !== online.good)
    Object.assign(online, { text: status.online ? 'Online.' : 'Offline.', good: status.online });
  const line = by_id('status-online');
  line.textContent = online.text;
  line.className = online.good ? 'summary good' : 'summary bad';
  render_nethernet(nethernet);
  render_raknet(raknet);
  const clients = status.clients && typeof status.clients === 'object' ? status.clients : {};
  const summary = Array.isArray(clients.summary)
    ? clients.summary.filter((s) => typeof s === 'string') : [];
  fill_list(by_id('clients-summary'), summary);
  by_id('clients-title').hidden = summary.length === 0;
  by_id('status-result').hidden = false;
}

const column_names = ['Address', 'Port', 'Type', 'Transport', 'Scope', 'Reachable'];

const check_results = {
  timeout: 'no answer within 1.5 s',
  integrity: 'something else answers on this port',
  error_response: 'answered with an error',
  send_failed: 'could not be sent',
};

const refusals = {
  policy: 'a private or local address',
  limit: 'past the 8 addresses checked',
  not_udp: 'not a UDP port players use',
  not_ip: 'a name, not an address',
};

/// A round-trip time as people read it: "0.2 ms", "38 ms".
function ms_words(ms) {
  return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
}

/// The Reachable column of a probed candidate: its words and whether they are good news.
export function reach_words(candidate) {
  if (candidate.reachable === true)
    return { text: Number.isFinite(candidate.rttMs) ? `yes, ${ms_words(candidate.rttMs)}` : 'yes',
             good: true };
  if (candidate.reachable === false)
    return { text: `no: ${check_results[candidate.checkResult] || text_of(candidate.checkResult, 'no answer')}`,
             good: false };
  return { text: `not checked: ${refusals[candidate.refused] || text_of(candidate.refused, 'no reason given')}`,
           good: false };
}

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
  const reach = reach_words(candidate);
  const reach_cell = cell('', 'reach');
  const badge = document.createElement('span');
  badge.className = reach.good ? 'reach-state good' : 'reach-state';
  badge.textContent = reach.text;
  reach_cell.append(badge);
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
  // The Reachable column only when the offer was probed.
  const probed = body.reachability && typeof body.reachability === 'object';
  by_id('candidates').classList.toggle('probed', Boolean(probed));
  const probe_summary = by_id('probe-summary');
  if (probed) {
    const r = body.reachability;
    probe_summary.textContent = `Connectivity checks: ${text_of(r.reachable, 0)} of `
      + `${text_of(r.checked, 0)} address${r.checked === 1 ? '' : 'es'} answered, `
      + `in ${Number.isFinite(r.elapsedMs) ? ms_words(r.elapsedMs) : 'an unknown time'}.`;
  }
  probe_summary.hidden = !probed;
  const warnings = Array.isArray(body.warnings) ? body.warnings : [];
  fill_list(by_id('offer-warnings'), warnings);
  by_id('offer-warnings-title').hidden = warnings.length === 0;
  const meta = [];
  meta.push(body.tls ? 'Sent over HTTPS.' : 'Sent over plain HTTP.');
  if (body.identity && typeof body.identity === 'object')
    meta.push(body.identity.verified ? 'The server\'s identity signature checks out.'
                                     : 'The server\'s identity could not be verified.');
  const offered = body.offerIdentity;
  if (offered && offered.kind === 'xbox' && typeof offered.gamertag === 'string')
    meta.push(`The offer was signed in to Xbox as ${offered.gamertag}: a server with an allowlist `
      + 'must list this gamertag.');
  if (body.cached)
    meta.push('This answer is from the last two minutes\' cache.');
  by_id('offer-meta').textContent = meta.join(' ');
  by_id('offer-result').hidden = false;
}

// -- the verdict ---------------------------------------------------------------------

const verdict_titles = {
  joinable: 'Players can join.',
  version_mismatch: 'Players cannot join: the server runs another version.',
  join_failed: 'Players cannot join: the connection fails on the way to the game.',
  signalling_only: 'The server answers, but players cannot get through.',
  private_candidates: 'Players cannot join: the server gives only private addresses.',
  no_candidates: 'Players cannot join: the server named no UDP port.',
  auth_required: 'Online mode: Xbox sign-in required.',
  not_allowed: 'A signed-in player was turned away.',
  raknet_only: 'RakNet only: the server does not answer NetherNet signalling.',
  refused: 'The server refused the offer.',
  offline: 'The server is offline or cannot be reached.',
};

/// The verdicts that say the server is up, though this check cannot show players joining
/// over NetherNet: shown apart from both good news and failures.
const up_verdicts = ['auth_required', 'not_allowed', 'raknet_only'];

/// The verdict's title, and its meaning from the page's own list of verdicts (one text for
/// both places).
export function describe_verdict(code) {
  const known = Object.prototype.hasOwnProperty.call(verdict_titles, code);
  const term = known ? by_id(`verdict-${code}`) : null;
  const meaning = term && term.nextElementSibling ? term.nextElementSibling.textContent.trim() : '';
  const good = code === 'joinable';
  return { title: known ? verdict_titles[code] : `Verdict: ${text_of(code, 'none')}`,
           meaning, anchor: known ? `#verdict-${code}` : '#verdicts', good,
           tone: good ? 'good' : up_verdicts.includes(code) ? 'up' : 'bad' };
}

function render_check(body) {
  const verdict = describe_verdict(body.verdict);
  // Joinable from where netherscope runs is not joinable for everyone when every address
  // that answered is a private or loopback one (a test, a LAN the operator allowed).
  const offer = body.offer && typeof body.offer === 'object' ? body.offer : {};
  const candidates = Array.isArray(offer.candidates) ? offer.candidates : [];
  let answered = candidates.filter((c) => c && c.reachable === true);
  // With a join, the candidate that answered is the pair's.
  const join = body.join && typeof body.join === 'object' ? body.join : null;
  if (join && join.joined === true && join.pair && typeof join.pair.remote === 'string') {
    const remote = join.pair.remote;
    answered = candidates.filter((c) => c && `${String(c.address).includes(':') ? `[${c.address}]` : c.address}:${c.port}` === remote);
  }
  const local_only = body.verdict === 'joinable' && answered.length > 0
    && answered.every((c) => c.scope !== 'public');
  if (local_only) {
    verdict.title = 'Joinable from here, but only on this network.';
    verdict.good = false;
    verdict.tone = 'bad';
  }
  by_id('verdict-text').textContent = verdict.title;
  by_id('verdict-code').textContent = text_of(body.verdict, 'none');
  const link = by_id('verdict-code-link');
  link.href = verdict.anchor;
  link.setAttribute('aria-label', `What the verdict ${text_of(body.verdict, 'none')} means`);
  by_id('verdict-meaning').textContent = verdict.meaning;
  by_id('verdict').className = `verdict ${verdict.tone}`;
  fill_list(by_id('verdict-reasons'), Array.isArray(body.reasons) ? body.reasons : []);
  const steps = Array.isArray(body.nextSteps) ? body.nextSteps : [];
  fill_list(by_id('verdict-next-steps'), steps);
  by_id('next-steps-title').hidden = steps.length === 0;
  // The offer's own error (a refusal with its NetherNet number), with its explanation.
  const offer_error = by_id('check-offer-error');
  const explain = by_id('check-offer-error-explain');
  explain.replaceChildren();
  if (body.offerError && typeof body.offerError === 'object') {
    const error = describe_error({ status: 0, body: body.offerError, quota: null,
                                   retry_after: null, request_id: null, network_error: null });
    by_id('check-offer-error-text').textContent = `${error.title} ${error.detail}`.trim();
    by_id('check-offer-error-code').textContent = error.code;
    if (error.explain)
      explain.append('· ', explain_link(error.explain, error.explain_label));
    offer_error.hidden = false;
  } else {
    offer_error.hidden = true;
  }
  by_id('check-result').hidden = false;
  // The check's status parts, shown as a status is: NetherNet (the info, or its error) and
  // RakNet, with the clients.
  const info = body.info && typeof body.info === 'object' ? body.info : body.infoError;
  const raknet = body.raknet && typeof body.raknet === 'object' ? body.raknet : null;
  if ((info && typeof info === 'object') || raknet)
    render_status({ nethernet: info, raknet, clients: body.clients });
  if (body.offer && typeof body.offer === 'object' && body.offer.ok === true)
    render_offer(body.offer);
  // The check's join, as its own timeline.
  if (body.join && typeof body.join === 'object')
    render_join(body.join);
}

// -- the join, stage by stage ----------------------------------------------------------

/// The stages of a join, in order: the reply's code, the name shown, what happens there, and
/// the field of its time in the reply's timings.
const join_stages = [
  ['signalling', 'Signalling', 'Our offer over TCP, and the server\'s answer with its addresses.', 'signallingMs'],
  ['ice', 'ICE', 'UDP checks both ways with an address of the answer.', 'iceMs'],
  ['dtls', 'DTLS', 'The encrypted handshake; the server\'s certificate checked against its answer.', 'dtlsMs'],
  ['sctp', 'SCTP', 'The association that carries the game\'s channels.', 'sctpMs'],
  ['channels', 'Channels', 'ReliableDataChannel and UnreliableDataChannel opened.', 'channelsMs'],
  ['game', 'Game', 'RequestNetworkSettings sent, and the server\'s first game packet read.', 'gameMs'],
];

/// Each stage of a join reply with its state: done (passed), failed (where the join ended
/// without joining), skipped (not reached); its time in ms or null.
export function join_steps(body) {
  const ended = join_stages.findIndex(([code]) => code === body.stage);
  const timings = body.timings && typeof body.timings === 'object' ? body.timings : {};
  return join_stages.map(([code, name, what, field], i) => {
    let state = 'skipped';
    if (ended < 0 || i < ended)
      state = ended < 0 ? 'skipped' : 'done';
    else if (i === ended)
      state = body.joined === true ? 'done' : 'failed';
    const ms = typeof timings[field] === 'number' ? timings[field] : null;
    return { code, name, what, state, ms };
  });
}

function join_step_item(step, body) {
  const item = document.createElement('li');
  item.className = step.state;
  const head = document.createElement('p');
  head.className = 'step-head';
  const name = document.createElement('span');
  name.className = 'step-name';
  name.textContent = step.name;
  const time = document.createElement('span');
  time.className = 'step-time';
  time.textContent = step.ms !== null ? ms_words(step.ms) : step.state === 'skipped' ? 'not reached' : '';
  head.append(name, time);
  const what = document.createElement('p');
  what.className = 'step-what';
  what.textContent = step.what;
  item.append(head, what);
  if (step.state === 'failed') {
    const failure = document.createElement('p');
    failure.className = 'step-failure';
    failure.textContent = text_of(body.reason, 'The join stopped here.');
    const next = document.createElement('p');
    next.className = 'step-next';
    next.id = 'join-next-step';
    const code = text_of(body.outcome, '');
    if (code)
      next.append(explain_link(`/api/explain/${encodeURIComponent(code)}`, `What ${code} means and what to check`));
    item.append(failure, next);
    show_next_step(code, next);
  }
  return item;
}

/// The first thing to check for a failed join, from the outcome's explanation, before its link.
async function show_next_step(code, holder) {
  if (!code)
    return;
  const reply = await call_api('GET', `/api/explain/${encodeURIComponent(code)}`);
  const checks = reply.status === 200 && reply.body && Array.isArray(reply.body.checks)
    ? reply.body.checks : [];
  if (checks.length === 0 || typeof checks[0] !== 'string')
    return;
  const strong = document.createElement('strong');
  strong.textContent = 'Next step: ';
  holder.prepend(strong, `${checks[0]} `);
}

function render_join(body) {
  const joined = body.joined === true;
  by_id('join-text').textContent = joined
    ? 'A player got in: the server sent its first game packet.'
    : `The join stopped at ${(join_stages.find(([code]) => code === body.stage) || [0, text_of(body.stage, 'an unknown stage')])[1]}.`;
  by_id('join-outcome').textContent = text_of(body.outcome, 'none');
  // A failed join's reason shows at the step it ended in, once.
  by_id('join-reason').textContent = joined ? text_of(body.reason, '') : '';
  by_id('join-reason').hidden = !joined;
  by_id('join-verdict').className = `verdict ${joined ? 'good' : 'bad'}`;
  by_id('join-timeline').replaceChildren(...join_steps(body).map((step) => join_step_item(step, body)));
  const pair = body.pair && typeof body.pair === 'object' ? body.pair : null;
  const pair_line = by_id('join-pair');
  pair_line.hidden = pair === null;
  if (pair !== null)
    pair_line.textContent = `${joined ? 'The pair that worked' : 'The pair it tried'}: `
      + `${text_of(pair.local, '?')} to ${text_of(pair.remote, '?')}`
      + (typeof pair.rttMs === 'number' ? `, ${ms_words(pair.rttMs)} round trip.` : '.');
  by_id('join-result').hidden = false;
  if (body.offer && typeof body.offer === 'object' && body.offer.ok === true)
    render_offer(body.offer);
}

// -- history and watching ------------------------------------------------------------

/// Whether this browser is signed in, so the page may offer to watch the server.
let signed_in = false;
/// The server the verdict on show is of, for the watch button.
let checked_target = null;

/// A share of checks in words: "99.9%", rounded down as the chart writes it.
export function share_words(share) {
  if (typeof share !== 'number' || !Number.isFinite(share))
    return 'no';
  return `${(Math.floor(share * 1000) / 10).toFixed(1)}%`;
}

/// The history's sentence: "Joinable in 99.9% of 288 checks, online in 100.0%."
export function history_sentence(body) {
  const uptime = body && typeof body.uptime === 'object' && body.uptime ? body.uptime : {};
  const checks = typeof uptime.checks === 'number' ? uptime.checks : 0;
  if (checks === 0)
    return 'Watched; no check has run yet.';
  return `Joinable in ${share_words(uptime.joinable)} of ${checks} check${checks === 1 ? '' : 's'},`
    + ` online in ${share_words(uptime.online)}.`;
}

/// Shows the server's history when someone watches it where this browser may read it (a
/// public watch, or the signed-in account's own), with the chart of a public one.
async function show_history(target) {
  const section = by_id('history');
  section.hidden = true;
  const query = new URLSearchParams({ host: target.host, range: '24h' });
  if (target.port !== null)
    query.set('port', String(target.port));
  const reply = await call_api('GET', `/api/history?${query}`);
  if (reply.status !== 200 || !reply.body || reply.body.ok !== true)
    return;
  by_id('history-text').textContent = history_sentence(reply.body);
  const chart = by_id('history-chart');
  chart.hidden = true;
  // Only a public watch's history is drawn: the chart is for anyone to embed.
  if (reply.body.public === true) {
    chart.onload = () => { chart.hidden = false; };
    chart.alt = `History of ${target.host}: ${history_sentence(reply.body)}`;
    chart.src = `/chart.svg?${query}`;
  }
  section.hidden = false;
}

async function watch_server() {
  if (!checked_target)
    return;
  const button = by_id('watch-button');
  const status = by_id('watch-status');
  button.disabled = true;
  const json = { host: checked_target.host };
  if (checked_target.port !== null)
    json.port = checked_target.port;
  const reply = await call_api('POST', '/api/watch', { json });
  button.disabled = false;
  if (reply.status === 201)
    status.textContent = 'Watching: checked every 5 minutes. Your account page lists your watches.';
  else if (reply.body && reply.body.code === 'watch_exists')
    status.textContent = 'Your account watches this server already.';
  else
    status.textContent = describe_error(reply).title;
}

// -- the check form ------------------------------------------------------------------

let running = false;
/// The Server field's value the results on show belong to.
let results_for = null;

const result_of = { status: 'status-result', offer: 'offer-result', check: 'check-result',
                    join: 'join-result' };

async function run_check(action) {
  if (running)
    return;
  hide_error('error');
  // A status and an offer of one server show together; a check of another clears them all.
  // A verdict stands with the status and offer it came with, so a new call clears it.
  const typed = by_id('server').value.trim();
  if (typed !== results_for || action === 'check') {
    for (const id of Object.values(result_of))
      by_id(id).hidden = true;
    by_id('server-link-line').hidden = true;
  } else {
    by_id(result_of[action]).hidden = true;
    by_id('check-result').hidden = true;
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
  const buttons = [by_id('status-button'), by_id('offer-button'), by_id('check-button'),
                   by_id('join-button')];
  const button = by_id(`${action}-button`);
  for (const b of buttons)
    b.disabled = true;
  const busy = { status: 'Checking…', offer: 'Sending offer…', check: 'Checking…',
                 join: 'Joining…' };
  set_busy(button, true, busy[action]);
  const progress = by_id('progress');
  progress.textContent = {
    status: 'Asking the server for its status over NetherNet and RakNet.',
    offer: 'Sending a WebRTC offer; a server may take up to 20 seconds to answer.',
    check: 'Asking for the status, then sending an offer and testing its UDP ports; this '
           + 'may take up to 25 seconds.',
    join: 'Joining as a player: an offer, then ICE, DTLS, SCTP, the channels and the first '
          + 'game packet; this may take up to 30 seconds.',
  }[action];
  progress.hidden = false;
  let reply;
  if (action === 'join') {
    const json = { host: target.host };
    if (target.port !== null)
      json.port = target.port;
    reply = await call_api('POST', '/api/join', { json });
  } else if (action === 'offer') {
    const json = { host: target.host };
    if (target.port !== null)
      json.port = target.port;
    if (by_id('probe').checked)
      json.probe = true;
    reply = await call_api('POST', '/api/offer', { json });
  } else {
    const query = new URLSearchParams({ host: target.host });
    if (target.port !== null)
      query.set('port', String(target.port));
    reply = await call_api('GET', `/api/${action}?${query}`);
  }
  progress.hidden = true;
  set_busy(button, false);
  for (const b of buttons)
    b.disabled = false;
  running = false;
  show_quota(reply, action);
  const answered = reply.status === 200 && reply.body && reply.body.ok === true;
  by_id('server-link').href = server_page_path(target);
  by_id('server-link-line').hidden = !answered;
  if (answered) {
    if (action === 'offer')
      render_offer(reply.body);
    else if (action === 'join')
      render_join(reply.body);
    else if (action === 'check') {
      render_check(reply.body);
      checked_target = target;
      by_id('watch-status').textContent = '';
      by_id('watch-line').hidden = !signed_in;
      show_history(target);
    }
    else
      render_status(reply.body);
  } else {
    show_error('error', describe_error(reply));
  }
}

// -- explanations of codes -------------------------------------------------------------

const evidence_words = {
  source_code: 'Read in an implementation that sends or handles this code.',
  reports: 'From public reports by players or operators; nothing confirms them.',
  name_only: 'Only the name is known; the rest is netherscope\'s reading of it.',
};

/// Only web links become links; anything else in a source shows as text.
function web_url(text) {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

function render_explanation(body) {
  const name = typeof body.name === 'string' && body.name !== '' ? ` (${body.name})` : '';
  const what = { client_codeword: 'Code players see', check_verdict: 'Verdict',
                 raknet_status: 'RakNet status',
                 xbox_error: 'Xbox sign-in error' }[body.kind] || 'NetherNet error';
  by_id('explain-title').textContent = `${what} ${text_of(body.code, '')}${name}`;
  const kind = [];
  if (Array.isArray(body.aliases) && body.aliases.length > 0)
    kind.push(`Also called ${body.aliases.join(', ')}.`);
  if (body.variant !== undefined && body.variant !== null)
    kind.push(`Nobody has published what the number ${body.variant} adds; this is the word's meaning.`);
  by_id('explain-kind').textContent = kind.join(' ');
  by_id('explain-kind').hidden = kind.length === 0;
  by_id('explain-meaning').textContent = text_of(body.meaning, '');
  const causes = Array.isArray(body.causes) ? body.causes : [];
  fill_list(by_id('explain-causes'), causes);
  by_id('explain-causes-title').hidden = causes.length === 0;
  const checks = Array.isArray(body.checks) ? body.checks : [];
  fill_list(by_id('explain-checks'), checks);
  by_id('explain-checks-title').hidden = checks.length === 0;
  by_id('explain-note').textContent = text_of(body.note, '');
  by_id('explain-note').hidden = !body.note;
  by_id('explain-evidence').textContent = evidence_words[body.evidence] || '';
  const sources = by_id('explain-sources');
  sources.replaceChildren();
  for (const source of Array.isArray(body.sources) ? body.sources : []) {
    if (!source || typeof source !== 'object')
      continue;
    const li = document.createElement('li');
    const href = web_url(source.url);
    if (href) {
      const a = document.createElement('a');
      a.href = href;
      a.rel = 'noreferrer noopener';
      a.textContent = href;
      li.append(a);
    } else {
      li.append(text_of(source.url, ''));
    }
    if (typeof source.what === 'string' && source.what !== '')
      li.append(`: ${source.what}`);
    sources.append(li);
  }
  sources.hidden = sources.children.length === 0;
}

/// Fetches an explanation and shows it in the page, focused so that keyboard and screen
/// reader users land on it.
async function open_explanation(href, button) {
  hide_error('error');
  if (button)
    set_busy(button, true, 'Looking up…');
  const reply = await call_api('GET', href);
  if (button)
    set_busy(button, false);
  if (reply.status === 200 && reply.body && reply.body.ok === true) {
    render_explanation(reply.body);
    const panel = by_id('explain');
    panel.hidden = false;
    panel.focus();
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
  const login = text_of(body.login, 'unknown');
  by_id('account-login').textContent = `Signed in as ${login}`;
  by_id('account-key-state').textContent = body.keyActive
    ? 'Your account has an active API key. It was shown once, when it was made; get a new '
      + 'one on your account page if you no longer have it.'
    : 'Your account has no active API key; get one on your account page.';
  const usage = body.usage && typeof body.usage === 'object' ? body.usage : {};
  const rows = [];
  if (usage.info)
    rows.push(usage_row('Status checks', usage.info));
  if (usage.offer)
    rows.push(usage_row('Offers', usage.offer));
  by_id('usage-rows').replaceChildren(...rows);
  by_id('usage-caption').textContent = body.month
    ? `Your key's usage in ${body.month} (UTC)` : 'Your key\'s usage this month';
  by_id('account-view').hidden = false;
  by_id('account-intro').hidden = true;
  const header_link = by_id('signin-link');
  header_link.textContent = login;
  header_link.href = account.account_page_url;
  header_link.setAttribute('aria-label', `Your account (${login})`);
}

/// Asks the service who is signed in and shows the account, or the sign-in invitation.
async function show_session() {
  const reply = await account.load_session();
  if (reply.status === 200 && reply.body && reply.body.ok === true) {
    if (reply.body.signedIn === true) {
      signed_in = true;
      render_account(reply.body);
    }
    return;
  }
  show_error('account-error', describe_error(reply));
}

// -- wiring ------------------------------------------------------------------------------

function start() {
  by_id('check-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const action = event.submitter && event.submitter.dataset.action;
    run_check(['offer', 'check', 'join'].includes(action) ? action : 'status');
  });
  by_id('explain-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const code = by_id('code').value.trim();
    if (!/^[A-Za-z0-9_-]{1,40}$/.test(code)) {
      show_error('error', { title: 'That is not a code netherscope can look up.',
                            detail: 'Type a number such as 37 or a word such as Door-83.',
                            code: 'invalid_input' });
      by_id('code').focus();
      return;
    }
    open_explanation(`/api/explain/${encodeURIComponent(code)}`, by_id('explain-button'));
  });
  // Every explanation link, whenever it was made, opens in the page.
  document.addEventListener('click', (event) => {
    const link = event.target instanceof Element ? event.target.closest('a') : null;
    if (!link)
      return;
    const href = link.getAttribute('href') || '';
    if (link.classList.contains('explain-link') && explain_href(href)) {
      event.preventDefault();
      open_explanation(href, null);
    } else if (href.startsWith('#verdict')) {
      // The list of verdicts is folded; open it so that the link lands on the text.
      by_id('verdicts').open = true;
    }
  });
  by_id('watch-button').addEventListener('click', () => { watch_server(); });
  by_id('explain-close').addEventListener('click', () => {
    by_id('explain').hidden = true;
    by_id('server').focus();
  });
  for (const link of document.querySelectorAll('a[href="/auth/github/login"]'))
    link.href = account.sign_in_url;
  show_session();
}

start();
