#!/usr/bin/env node
// The page at GET /, driven in Debian's chromium by playwright-core, against the running
// service, the fake target and the fake GitHub. tests/e2e/edge/browser_e2e_test.cpp starts those
// and runs this script; it can also run alone against services started by hand:
//
//   NETHERSCOPE_URL=http://127.0.0.1:8080 TARGET=127.0.0.1:PORT SCREENSHOT_DIR=build/browser \
//     node tests/browser/page_test.mjs
//
// TARGET is a fake_target whose status names the server "<img src=x onerror=...>", and which
// answers offers and connectivity checks; TARGET_RAKNET=on says it answers RakNet's ping too
// (--raknet on), so its pong carries the same name; otherwise nothing listens on its UDP port.
// The optional ones: REFUSING_TARGET refuses every offer with NetherNet error 13;
// RAKNET_ONLY_TARGET answers only RakNet (--raknet only, with TARGET's --info);
// ONLINE_TARGET is in online mode (--auth online); JOIN_TARGET is a WebRTC stack
// (tools/webrtc_target) that speaks the Bedrock prelude, which a join gets into;
// FAILING_JOIN_TARGET answers checks but never starts DTLS (--game off). Sign-in needs the service wired to the fake
// GitHub (SIGN_IN=1).
// The script fails on any request to a host that is not loopback and on any console error,
// prints one line per step, and exits 0 only when every step passed.

import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const base_url = required_env('NETHERSCOPE_URL');
const target = required_env('TARGET');
const screenshot_dir = required_env('SCREENSHOT_DIR');
const hostile_name = process.env.HOSTILE_NAME || '§c§l<img src=x onerror="window.__xss=1">';
// The name as the game shows it: without its formatting codes ('§' and the character after).
const hostile_clean = hostile_name.replace(/§./gu, '');
const chromium_path = process.env.CHROMIUM || '/usr/bin/chromium';
const sign_in = process.env.SIGN_IN === '1';
const refusing_target = process.env.REFUSING_TARGET || '';
const target_raknet = process.env.TARGET_RAKNET === 'on';
const raknet_only_target = process.env.RAKNET_ONLY_TARGET || '';
const online_target = process.env.ONLINE_TARGET || '';
const join_target = process.env.JOIN_TARGET || '';
const failing_join_target = process.env.FAILING_JOIN_TARGET || '';
const step_timeout = 30000;

function required_env(name) {
  const value = process.env[name];
  if (!value) {
    console.log(`FAIL: ${name} is not set`);
    process.exit(2);
  }
  return value;
}

// -- what must never happen -------------------------------------------------------------

/// True for loopback hosts only: 127.0.0.0/8, ::1 and localhost (RFC 6761).
function is_loopback_url(text) {
  let url;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  // about:blank and data: URLs of the browser itself go nowhere.
  if (url.protocol === 'about:' || url.protocol === 'data:')
    return true;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return /^127(\.\d{1,3}){3}$/.test(host) || host === '::1' || host === 'localhost';
}

const problems = [];
const requests = [];
/// Console lines for responses this test asked to fail (an error it wants rendered); Chromium
/// logs every 4xx and 5xx of a fetch, which is the browser's note, not an error of the page.
const expected_failures = [];

function problem(text) {
  problems.push(text);
  console.log(`PROBLEM: ${text}`);
}

function step(text) {
  console.log(`step: ${text}`);
}

function check(condition, text) {
  if (!condition)
    throw new Error(`check failed: ${text}`);
}

/// The text of an element, for checks and their messages.
async function text(selector) {
  return (await page.locator(selector).textContent()) || '';
}

// -- the browser ----------------------------------------------------------------------------

const user_data_dir = mkdtempSync(join(tmpdir(), 'netherscope-chromium-'));
mkdirSync(screenshot_dir, { recursive: true });

const context = await chromium.launchPersistentContext(user_data_dir, {
  executablePath: chromium_path,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--no-first-run'],
  viewport: { width: 1280, height: 900 },
  colorScheme: 'light',
  reducedMotion: 'reduce',
});

// Every request goes through here: one to a host that is not loopback is refused and fails
// the test, so nothing leaves the machine even when the page is wrong.
await context.route('**/*', (route) => {
  const url = route.request().url();
  if (!is_loopback_url(url)) {
    problem(`request to a non-loopback host: ${url}`);
    return route.abort('blockedbyclient');
  }
  return route.continue();
});
context.on('request', (request) => requests.push(request.url()));

// A check asks for the server's history, which is 404 for a server nobody watches; the watch
// button's second press is 409 watch_exists.
expected_failures.push(`${base_url}/api/history`, `${base_url}/api/watch`);

const page = context.pages()[0] || await context.newPage();
page.setDefaultTimeout(step_timeout);
page.on('console', (message) => {
  if (message.type() !== 'error')
    return;
  const text = message.text();
  const location = message.location().url || '';
  const expected = text.startsWith('Failed to load resource: the server responded with a status of')
    && expected_failures.some((prefix) => location.startsWith(prefix));
  if (expected)
    console.log(`note: expected failure logged by the browser: ${location}`);
  else
    problem(`console error: ${text} (${location})`);
});
page.on('pageerror', (error) => problem(`uncaught exception in the page: ${error.message}`));

async function shoot(name) {
  const path = join(screenshot_dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot: ${path}`);
}

async function no_horizontal_scroll(label) {
  const sizes = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth,
  }));
  check(sizes.scroll <= sizes.client,
        `${label}: the page scrolls sideways (scrollWidth ${sizes.scroll} > clientWidth ${sizes.client})`);
}

/// Visible text whose colour does not meet WCAG AA against the background behind it (4.5:1,
/// or 3:1 for large text), as "text: ratio" strings.
async function contrast_failures() {
  return page.evaluate(() => {
    const parse = (text) => {
      const m = text.match(/rgba?\(([\d.]+), ([\d.]+), ([\d.]+)(?:, ([\d.]+))?\)/);
      return m ? { rgb: [Number(m[1]), Number(m[2]), Number(m[3])], alpha: m[4] === undefined ? 1 : Number(m[4]) } : null;
    };
    const luminance = ([r, g, b]) => {
      const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const background = (element) => {
      for (let e = element; e; e = e.parentElement) {
        const color = parse(getComputedStyle(e).backgroundColor);
        if (color && color.alpha > 0)
          return color.rgb;
      }
      return [255, 255, 255];
    };
    const failures = [];
    for (const element of document.querySelectorAll('body *')) {
      const own_text = [...element.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
      if (!own_text || element.getClientRects().length === 0)
        continue;
      const style = getComputedStyle(element);
      if (style.visibility === 'hidden' || element.closest('[hidden]'))
        continue;
      const fg = parse(style.color).rgb;
      const bg = background(element);
      const [a, b] = [luminance(fg), luminance(bg)].sort((x, y) => y - x);
      const ratio = (a + 0.05) / (b + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5))
        failures.push(`${element.textContent.trim().slice(0, 40)}: ${ratio.toFixed(2)}`);
    }
    return failures;
  });
}

let failed = null;
try {
  // -- the page and its headers ----------------------------------------------------------
  step('open the page');
  const response = await page.goto(`${base_url}/`);
  check(response.status() === 200, `GET / answered ${response.status()}`);
  const headers = response.headers();
  const csp = headers['content-security-policy'] || '';
  check(/default-src 'self'/.test(csp) && !/unsafe-inline/.test(csp)
        && /frame-ancestors 'none'/.test(csp), `Content-Security-Policy: ${csp}`);
  check(headers['x-content-type-options'] === 'nosniff', 'X-Content-Type-Options');
  check(headers['referrer-policy'] === 'no-referrer', 'Referrer-Policy');
  check(await page.getAttribute('html', 'lang') === 'en', 'html lang');
  check(await page.locator('h1').count() === 1, 'exactly one h1');

  step('every input has a label');
  const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select, textarea')]
    .filter((e) => e.labels.length === 0 && !e.getAttribute('aria-label')).map((e) => e.id || e.name));
  check(unlabelled.length === 0, `inputs without a label: ${unlabelled.join(', ')}`);
  check(await page.getByLabel('Server', { exact: true }).count() === 1, 'a field labelled Server');
  check(await page.getByRole('button', { name: 'Check status' }).count() === 1, 'Check status button');
  check(await page.getByRole('button', { name: 'Send offer' }).count() === 1, 'Send offer button');

  // -- keyboard only: a status check --------------------------------------------------------
  step('keyboard only: tab to the Server field, type, press Enter');
  let reached = false;
  for (let i = 0; i < 10 && !reached; ++i) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement && document.activeElement.id === 'server');
  }
  check(reached, 'Tab reaches the Server field');
  const outline = await page.evaluate(() => {
    const style = getComputedStyle(document.activeElement);
    return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
  });
  check(outline.style !== 'none' && outline.width >= 2, `visible focus on Server: ${JSON.stringify(outline)}`);
  await page.keyboard.type(target);
  await page.keyboard.press('Enter');
  const status = page.locator('#status-result');
  await status.waitFor({ state: 'visible' });

  step('the status shows the hostile server name as text');
  const name = await page.locator('#status-name').textContent();
  check(name === hostile_clean, `server name shown as "${name}"`);
  // In Bedrock's colours from /motd.css: §c is red FF5555 and §l bold.
  const styled = page.locator('#status-name span.mc-c.mc-l');
  check(await styled.count() === 1, 'the name is one span in red and bold');
  if (await styled.count() === 1) {
    const look = await styled.evaluate((e) => ({ color: getComputedStyle(e).color, weight: getComputedStyle(e).fontWeight }));
    check(look.color === 'rgb(255, 85, 85)' && Number(look.weight) >= 700, `name styled ${JSON.stringify(look)}`);
  }
  check(await page.locator('#status-name img, main img[src="x"]').count() === 0,
        'no element was made from the server name');
  check(await page.evaluate(() => window.__xss === undefined), 'the name\'s script never ran');
  check(/Plain HTTP/.test(await page.locator('#status-tls').textContent()), 'TLS shown as not used');
  check(/3 of 10/.test(await page.locator('#status-players').textContent()), 'players shown');
  check(/1\.26\.51/.test(await page.locator('#status-version').textContent()), 'version shown');
  const quota = await page.locator('#quota').textContent();
  check(/status checks left this month for your address/.test(quota), `quota line: ${quota}`);
  check(requests.some((url) => new URL(url).pathname === '/api/status'),
        'Check status asked GET /api/status');

  step('the status shows both transports, whether it is online, and who can join');
  check(/^Answered HTTP 200\.$/.test(await text('#nethernet-state')),
        `NetherNet state: ${await text('#nethernet-state')}`);
  if (target_raknet) {
    check(await text('#status-online') === 'Online: NetherNet and RakNet both answered.',
          `online line: ${await text('#status-online')}`);
    check(/^Answered in [\d.]+ ms\.$/.test(await text('#raknet-state')),
          `RakNet state: ${await text('#raknet-state')}`);
    // The pong carries the same hostile name, which must stay text there too.
    // Both lines of the server list: the name, then the level's.
    check(await text('#raknet-motd') === hostile_clean + 'Bedrock level', `MOTD shown as "${await text('#raknet-motd')}"`);
    check(await page.locator('#raknet-motd br').count() === 1, 'the MOTD\'s two lines');
    check(await page.locator('#raknet-facts img').count() === 0, 'no element was made from the MOTD');
    check(/^3 of 10$/.test(await text('#raknet-players')), `pong players: ${await text('#raknet-players')}`);
    check(/1\.26\.51/.test(await text('#raknet-version')), 'pong version shown');
    check(/^[\d.]+ ms$/.test(await text('#raknet-latency')), `latency: ${await text('#raknet-latency')}`);
  } else {
    check(await text('#status-online') === 'Online over NetherNet; RakNet did not answer.',
          `online line: ${await text('#status-online')}`);
    // Nothing listens on the fake's UDP port: loopback says so at once (ICMP port
    // unreachable), and a host that dropped it silently would time out.
    const state = await text('#raknet-state');
    check(/^No pong\./.test(state) && / (no_listener|timeout)$/.test(state.replace(/ · What this means$/, '')),
          `RakNet state: ${state}`);
    check(await page.locator('#raknet-facts').isHidden(), 'no pong, no pong facts');
    check(await page.locator('#raknet-state a.explain-link').count() === 1,
          'the RakNet code links to its explanation');
  }
  check(await page.locator('#status-online.good').count() === 1, 'online shown as good news');
  check(await page.locator('#clients-summary li').count() >= 1, 'which clients can join, in sentences');
  check(await page.locator('#clients-title').isVisible(), 'the clients heading shows');
  check(await page.evaluate(() => window.__xss === undefined), 'no script from the status ran');

  // -- an offer ---------------------------------------------------------------------------
  step('send an offer and see the candidates table');
  await page.getByRole('button', { name: 'Send offer' }).click();
  await page.locator('#offer-result').waitFor({ state: 'visible' });
  const headings = await page.locator('#candidates thead th').allTextContents();
  check(JSON.stringify(headings) === JSON.stringify(['Address', 'Port', 'Type', 'Transport', 'Scope', 'Reachable']),
        `table columns: ${headings}`);
  const rows = page.locator('#candidate-rows tr');
  check(await rows.count() >= 1, 'at least one candidate row');
  const first = await rows.first().locator('td').allTextContents();
  check(first[0] === '127.0.0.1' && first[2] === 'host' && first[3] === 'udp' && first[4] === 'loopback',
        `first candidate: ${first}`);
  // The offer was probed (the box is ticked by default): the fake target answers the
  // connectivity check on its UDP port.
  check(/^yes, [\d.]+ ms$/.test(first[5]), `first candidate reachable: ${first[5]}`);
  check(await page.locator('#candidates th.reach').isVisible(), 'the Reachable column shows');
  check(/Connectivity checks: 1 of 1 address answered, in [\d.]+ ms\./.test(await page.locator('#probe-summary').textContent()),
        'probe summary');
  check(await page.locator('#offer-warnings li').count() >= 1, 'warnings in plain words');
  check(/offers left this month/.test(await page.locator('#quota').textContent()), 'offer quota line');

  // -- one verdict --------------------------------------------------------------------------
  step('Can players join? gives one verdict with its reasons, its join as a timeline and the candidates');
  await page.getByRole('button', { name: 'Can players join?' }).click();
  await page.locator('#check-result').waitFor({ state: 'visible' });
  check(await page.locator('#verdict-code').textContent() === 'joinable',
        `verdict code: ${await page.locator('#verdict-code').textContent()}`);
  // The fake target's only candidate is loopback: joinable from here, not from the Internet,
  // and the page must not claim more.
  check(/Joinable from here, but only on this network/.test(await page.locator('#verdict-text').textContent()),
        `verdict in words: ${await page.locator('#verdict-text').textContent()}`);
  check((await page.locator('#verdict-meaning').textContent()).length > 20, 'the verdict\'s meaning');
  check(await page.locator('#verdict-reasons li').count() >= 1, 'reasons listed');
  check(await page.locator('#status-result').isVisible() && await page.locator('#offer-result').isVisible(),
        'the status and the join\'s offer show with the verdict');
  check(await page.locator('#watch-line').isHidden(), 'not signed in: no watch button');
  // The fake target joins: the check's join shows every stage done.
  check(await page.locator('#join-result').isVisible() && await text('#join-outcome') === 'joined',
        `the check's join: ${await text('#join-outcome')}`);
  check(await page.locator('#join-timeline li.done').count() === 6, 'the check\'s join passed every stage');
  check(/offers left this month/.test(await page.locator('#quota').textContent()), 'check quota line');
  check(await page.locator('#verdict.good').count() === 0, 'a local-only verdict is not shown as good news');
  check(await page.locator('#raknet-state').isVisible()
        && /^(Answered|No pong)/.test(await text('#raknet-state')),
        `the check shows its RakNet status: ${await text('#raknet-state')}`);
  check(await page.locator('#clients-summary li').count() >= 1, 'the check shows who can join');

  step('the verdict code links to its explanation');
  await page.locator('#verdict-code-link').click();
  check(await page.locator('#verdicts').getAttribute('open') !== null, 'the list of verdicts opens');
  check(await page.locator('#verdict-joinable').isVisible(), 'the verdict\'s entry shows');
  check(new URL(page.url()).hash === '#verdict-joinable', `landed on ${page.url()}`);
  await shoot('page-desktop-light');
  let low_contrast = await contrast_failures();
  check(low_contrast.length === 0, `text below AA contrast (light): ${low_contrast.join('; ')}`);

  step('the same in the dark scheme, and at 375 px');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shoot('page-desktop-dark');
  low_contrast = await contrast_failures();
  check(low_contrast.length === 0, `text below AA contrast (dark): ${low_contrast.join('; ')}`);
  await page.setViewportSize({ width: 375, height: 812 });
  await no_horizontal_scroll('375 px, dark');
  await shoot('page-375-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await no_horizontal_scroll('375 px, light');
  await shoot('page-375-light');
  await page.setViewportSize({ width: 1280, height: 900 });

  // -- the join, stage by stage ------------------------------------------------------------
  if (join_target) {
    step('Join as a player: every stage done, with its time, and the pair that worked');
    await page.locator('#server').fill(join_target);
    await page.getByRole('button', { name: 'Join as a player' }).click();
    await page.locator('#join-result').waitFor({ state: 'visible' });
    check(await text('#join-outcome') === 'joined', `join outcome: ${await text('#join-outcome')}`);
    check(await page.locator('#join-verdict.good').count() === 1, 'a join that got in is good news');
    check(await page.locator('#join-timeline li').count() === 6, 'six stages');
    check(await page.locator('#join-timeline li.done').count() === 6, 'every stage done');
    for (const time of await page.locator('#join-timeline .step-time').allTextContents())
      check(/^[\d.]+ ms$/.test(time), `each stage has its time: ${time}`);
    check(/^The pair that worked: .+ to .+/.test(await text('#join-pair')), `pair: ${await text('#join-pair')}`);
    check(/offers left this month/.test(await text('#quota')), 'a join shows the offer quota');
    await shoot('join-desktop');
    await page.setViewportSize({ width: 375, height: 812 });
    await no_horizontal_scroll('join at 375 px');
    await shoot('join-375');
    await page.setViewportSize({ width: 1280, height: 900 });

  }
  if (join_target && failing_join_target) {
    step('a join that fails: the step it ended in is marked, with its reason and next step');
    await page.locator('#server').fill(failing_join_target);
    await page.getByRole('button', { name: 'Join as a player' }).click();
    await page.locator('#join-result').waitFor({ state: 'visible' });
    await page.locator('#join-timeline li.failed').waitFor({ state: 'visible' });
    check(await text('#join-outcome') === 'dtls_failed', `a server that never starts DTLS: ${await text('#join-outcome')}`);
    check(await page.locator('#join-verdict.bad').count() === 1, 'a failed join is bad news');
    check(await page.locator('#join-timeline li.failed').count() === 1, 'one failed step');
    check((await text('#join-timeline li.failed .step-failure')).length > 20, 'the failed step says why');
    await page.locator('#join-next-step strong').waitFor({ state: 'visible' });
    check(/^Next step: .+/.test(await text('#join-next-step')), `next step: ${await text('#join-next-step')}`);
    check(await page.locator('#join-next-step a.explain-link').count() === 1, 'the outcome links to its explanation');
    check(await page.locator('#join-timeline li.skipped').count() >= 1, 'the stages after it are not reached');
    const low = await contrast_failures();
    check(low.length === 0, `text below AA contrast (join): ${low.join('; ')}`);
    await shoot('join-failed-desktop');
    await page.setViewportSize({ width: 375, height: 812 });
    await no_horizontal_scroll('failed join at 375 px');
    await shoot('join-failed-375');
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  // -- an error ---------------------------------------------------------------------------
  // A status of a server that answers nothing is an answer (offline), not an error; an offer
  // to it is an error.
  step('an unreachable server: the offer shows an alert with its code');
  expected_failures.push(`${base_url}/api/offer`);
  await page.getByLabel('Server', { exact: true }).fill('127.0.0.1:1');
  await page.getByRole('button', { name: 'Send offer' }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'Error code' }).first();
  await alert.waitFor({ state: 'visible' });
  const code = await page.locator('#error-code').textContent();
  check(code === 'upstream_failure', `error code shown: ${code}`);
  check(/could not be reached/.test(await page.locator('#error-title').textContent()), 'error in plain words');
  check(/^[0-9a-f]{12}-[0-9a-f]+$/.test(await page.locator('#error-request-id').textContent()),
        'the request id to quote');
  check(await page.locator('#status-result').isHidden(), 'the old result is gone');
  await shoot('page-error-desktop-light');
  low_contrast = await contrast_failures();
  check(low_contrast.length === 0, `text below AA contrast (error): ${low_contrast.join('; ')}`);

  step('an unreachable server: its status says offline, with each transport\'s reason');
  await page.getByRole('button', { name: 'Check status' }).click();
  await page.locator('#status-result').waitFor({ state: 'visible' });
  check(await page.locator('#error').isHidden(), 'no alert for an offline server');
  check(await text('#status-online') === 'Offline: neither NetherNet nor RakNet answered.',
        `online line: ${await text('#status-online')}`);
  check(await page.locator('#status-online.bad').count() === 1, 'offline shown as bad news');
  check(/^No answer to GET \/v1\/join: .+\. upstream_failure$/.test(await text('#nethernet-state')),
        `NetherNet state: ${await text('#nethernet-state')}`);
  check(await page.locator('#nethernet-facts').isHidden(), 'no NetherNet facts without an answer');
  check(/^No pong\./.test(await text('#raknet-state')), `RakNet state: ${await text('#raknet-state')}`);
  low_contrast = await contrast_failures();
  check(low_contrast.length === 0, `text below AA contrast (offline): ${low_contrast.join('; ')}`);

  step('a typing mistake is caught before any call');
  const before = requests.length;
  await page.getByLabel('Server', { exact: true }).fill('play.example.com:99999');
  await page.getByRole('button', { name: 'Check status' }).click();
  await page.locator('#error-code', { hasText: 'invalid_input' }).waitFor();
  check(requests.length === before, 'no request for an impossible port');

  // -- a refusal and its code explained -------------------------------------------------------
  if (refusing_target) {
    step('a server that refuses the offer: verdict refused, NetherNet error 13 explained');
    await page.getByLabel('Server', { exact: true }).fill(refusing_target);
    await page.getByRole('button', { name: 'Can players join?' }).click();
    await page.locator('#check-result').waitFor({ state: 'visible' });
    check(await page.locator('#verdict-code').textContent() === 'refused',
          `verdict code: ${await page.locator('#verdict-code').textContent()}`);
    const link = page.locator('#check-offer-error a.explain-link');
    check(await link.getAttribute('href') === '/api/explain/13', `explain link: ${await link.getAttribute('href')}`);
    await link.click();
    await page.locator('#explain').waitFor({ state: 'visible' });
    check(/13 \(FailedToSetRemoteDescription\)/.test(await page.locator('#explain-title').textContent()),
          `explanation title: ${await page.locator('#explain-title').textContent()}`);
    check((await page.locator('#explain-meaning').textContent()).length > 20, 'the explanation\'s meaning');
    check(await page.locator('#explain-checks li').count() >= 1, 'what to check');
    check(new URL(page.url()).pathname === '/', 'the explanation opened in the page');
    check(await page.evaluate(() => document.activeElement && document.activeElement.id === 'explain'),
          'focus moves to the explanation');
    await shoot('page-refused-explained');
    low_contrast = await contrast_failures();
    check(low_contrast.length === 0, `text below AA contrast (explanation): ${low_contrast.join('; ')}`);
    await page.setViewportSize({ width: 375, height: 812 });
    await no_horizontal_scroll('375 px, verdict and explanation');
    await shoot('page-refused-explained-375');
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  // -- the verdicts of real configurations -----------------------------------------------------
  if (raknet_only_target) {
    step('a RakNet-only server: online over RakNet, its pong shown, verdict raknet_only');
    await page.getByLabel('Server', { exact: true }).fill(raknet_only_target);
    await page.getByRole('button', { name: 'Check status' }).click();
    await page.locator('#status-result').waitFor({ state: 'visible' });
    check(await text('#status-online') === 'Online over RakNet only; NetherNet signalling did not answer.',
          `online line: ${await text('#status-online')}`);
    check(/^No answer to GET \/v1\/join: .+ upstream_failure$/.test(await text('#nethernet-state')),
          `NetherNet state: ${await text('#nethernet-state')}`);
    check(/^Answered in [\d.]+ ms\.$/.test(await text('#raknet-state')),
          `RakNet state: ${await text('#raknet-state')}`);
    // Both lines of the server list: the name, then the level's.
    check(await text('#raknet-motd') === hostile_clean + 'Bedrock level', `MOTD shown as "${await text('#raknet-motd')}"`);
    check(await page.locator('#raknet-motd br').count() === 1, 'the MOTD\'s two lines');
    check(await page.locator('#raknet-facts img, main img[src="x"]').count() === 0,
          'no element was made from the MOTD');
    check(/^3 of 10$/.test(await text('#raknet-players')), `pong players: ${await text('#raknet-players')}`);
    check(await page.locator('#clients-summary li').count() >= 1, 'which clients can join');
    await page.getByRole('button', { name: 'Can players join?' }).click();
    await page.locator('#check-result').waitFor({ state: 'visible' });
    check(await text('#verdict-code') === 'raknet_only', `verdict code: ${await text('#verdict-code')}`);
    check(/^RakNet only/.test(await text('#verdict-text')), `verdict in words: ${await text('#verdict-text')}`);
    check(await page.locator('#verdict.up').count() === 1, 'raknet_only has the colours of a server that is up');
    check((await text('#verdict-meaning')).length > 20, 'the verdict\'s meaning');
    check(await page.locator('#status-result').isVisible()
          && /^Answered in/.test(await text('#raknet-state')), 'the check shows the pong');
    check(await page.locator('#offer-result').isHidden(), 'no offer was shown: none was sent');
    check(await page.evaluate(() => window.__xss === undefined), 'no script from the pong ran');
    await shoot('page-raknet-only');
    low_contrast = await contrast_failures();
    check(low_contrast.length === 0, `text below AA contrast (raknet_only): ${low_contrast.join('; ')}`);
    await page.emulateMedia({ colorScheme: 'dark' });
    low_contrast = await contrast_failures();
    check(low_contrast.length === 0, `text below AA contrast (raknet_only, dark): ${low_contrast.join('; ')}`);
    await page.setViewportSize({ width: 375, height: 812 });
    await no_horizontal_scroll('375 px, raknet_only');
    await shoot('page-raknet-only-375-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  if (online_target) {
    step('a server in online mode: verdict auth_required, in words and colours of a server that is up');
    await page.getByLabel('Server', { exact: true }).fill(online_target);
    await page.getByRole('button', { name: 'Can players join?' }).click();
    await page.locator('#check-result').waitFor({ state: 'visible' });
    check(await text('#verdict-code') === 'auth_required', `verdict code: ${await text('#verdict-code')}`);
    check(await text('#verdict-text') === 'Online mode: Xbox sign-in required.',
          `verdict in words: ${await text('#verdict-text')}`);
    check(await page.locator('#verdict.up').count() === 1, 'auth_required has the colours of a server that is up');
    check(await page.locator('#verdict-code-link').getAttribute('href') === '#verdict-auth_required',
          'the verdict links to its meaning');
    check(/^Answered HTTP 200\.$/.test(await text('#nethernet-state')), 'the status answered');
    check(await page.locator('#offer-result').isHidden(), 'no candidates are shown: the reply has none');
    await shoot('page-auth-required');
    low_contrast = await contrast_failures();
    check(low_contrast.length === 0, `text below AA contrast (auth_required): ${low_contrast.join('; ')}`);
  }

  step('a code players see, typed in, is explained');
  await page.getByLabel('Code', { exact: true }).fill('Door-83');
  await page.getByRole('button', { name: 'Explain', exact: true }).click();
  await page.locator('#explain-title', { hasText: 'Door' }).waitFor();
  check(/Code players see/.test(await page.locator('#explain-title').textContent()), 'a codeword explained');

  // -- sign-in and the account view ----------------------------------------------------------
  step('the page asks for no key and stores nothing');
  check(await page.locator('input[type="password"], #api-key').count() === 0, 'no field for a key');
  check(await page.locator('#account-intro').isVisible(), 'not signed in: the invitation shows');

  if (sign_in) {
    step('sign in with GitHub (the fake provider): the first key is shown once, on a styled page');
    await page.locator('#account').getByRole('link', { name: 'Sign in with GitHub' }).click();
    const key_element = page.locator('#api-key');
    await key_element.waitFor({ state: 'visible' });
    check(new URL(page.url()).pathname === '/auth/github/callback', `landed on ${page.url()}`);
    const key = (await key_element.textContent()).trim();
    check(/^nsk_/.test(key), 'a key is shown');
    check(await page.evaluate(() => getComputedStyle(document.body).backgroundColor) === 'rgb(244, 246, 245)',
          'the account page wears the page\'s stylesheet');
    check(await page.locator('header.top a[href="/"]').count() >= 1, 'the page\'s header, linking home');
    check(await page.locator('footer.foot').count() === 1, 'the page\'s footer');
    await shoot('signin-key-shown');
    low_contrast = await contrast_failures();
    check(low_contrast.length === 0, `text below AA contrast (key shown): ${low_contrast.join('; ')}`);
    await page.setViewportSize({ width: 375, height: 812 });
    await no_horizontal_scroll('375 px, key shown');
    await shoot('signin-key-shown-375');
    await page.setViewportSize({ width: 1280, height: 900 });

    step('back on the page: the account panel shows the login and usage, from the session');
    await page.goto(`${base_url}/`);
    await page.locator('#account-view').waitFor({ state: 'visible' });
    check(/Signed in as octocat/.test(await page.locator('#account-login').textContent()), 'login shown');
    check(/active API key/.test(await page.locator('#account-key-state').textContent()), 'key state shown');
    check(await page.locator('#usage-rows tr').count() === 2, 'usage rows');
    check(await page.locator('#account-intro').isHidden(), 'the invitation is gone');
    check(await page.locator('#signin-link').textContent() === 'octocat', 'the header names the account');
    check(await page.evaluate(() => localStorage.length === 0 && sessionStorage.length === 0),
          'nothing stored in the browser');
    check(await page.evaluate(() => document.cookie === ''), 'the session cookie is out of the script\'s reach');
    step('signed in: watch the checked server, and its history shows, read with the session');
    await page.locator('#server').fill(target);
    await page.getByRole('button', { name: 'Can players join?' }).click();
    await page.locator('#watch-line').waitFor({ state: 'visible' });
    check(await page.locator('#history').isHidden(), 'nobody watches it yet: no history');
    await page.getByRole('button', { name: 'Watch this server' }).click();
    await page.locator('#watch-status', { hasText: 'Watching' }).waitFor();
    await page.getByRole('button', { name: 'Watch this server' }).click();
    await page.locator('#watch-status', { hasText: 'already' }).waitFor();
    await page.getByRole('button', { name: 'Can players join?' }).click();
    await page.locator('#history').waitFor({ state: 'visible' });
    check(/^(Watched; no check has run yet\.|Joinable in [\d.]+% of \d+ checks?, online in [\d.]+%\.)$/
            .test(await text('#history-text')), `history: ${await text('#history-text')}`);
    await page.locator('#account').scrollIntoViewIfNeeded();
    await shoot('page-signed-in');
    low_contrast = await contrast_failures();
    check(low_contrast.length === 0, `text below AA contrast (signed in): ${low_contrast.join('; ')}`);

    step('the account page: a new key, shown once');
    await page.getByRole('link', { name: 'New key, revoke, sign out' }).click();
    await page.waitForURL(`${base_url}/account`);
    check(/Signed in as octocat/.test(await page.locator('h1').textContent()), 'account page h1');
    check(/^127\.0\.0\.1:\d+$/.test(await text('.watch-target')), 'the account page lists the watch made on the page');
    await page.getByRole('button', { name: 'New key' }).click();
    await page.locator('#api-key').waitFor({ state: 'visible' });
    const new_key = (await page.locator('#api-key').textContent()).trim();
    check(/^nsk_/.test(new_key) && new_key !== key, 'a different new key');
    await shoot('account-new-key');
    low_contrast = await contrast_failures();
    check(low_contrast.length === 0, `text below AA contrast (account): ${low_contrast.join('; ')}`);
    await page.setViewportSize({ width: 375, height: 812 });
    await no_horizontal_scroll('375 px, account page');
    await shoot('account-new-key-375');
    await page.setViewportSize({ width: 1280, height: 900 });

    step('revoke it, then sign out');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.locator('.notice', { hasText: 'revoked' }).waitFor();
    check(/no active API key/.test(await page.locator('#key-state').textContent()), 'no active key');
    for (const old of [key, new_key]) {
      const answer = await page.request.get(`${base_url}/api/account`, { headers: { 'X-API-Key': old } });
      check(answer.status() === 401, `a revoked or replaced key answers ${answer.status()}`);
    }
    await shoot('account-revoked');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('h1', { hasText: 'Signed out' }).waitFor();
    await page.goto(`${base_url}/`);
    await page.locator('#account-intro').waitFor({ state: 'visible' });
    check(await page.locator('#account-view').isHidden(), 'signed out: no account panel');
  }

  // -- the server's own page -----------------------------------------------------------------
  // Last, since following the link leaves the page and its results behind; afterwards the
  // browser is back on a fresh page at /.
  step('a status result links to the server\'s own page');
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${base_url}/`);
  await page.getByLabel('Server', { exact: true }).fill(target);
  await page.getByRole('button', { name: 'Check status' }).click();
  await page.locator('#status-result').waitFor({ state: 'visible' });
  const server_link = page.locator('#server-link');
  await server_link.waitFor({ state: 'visible' });
  const server_href = await server_link.getAttribute('href');
  check(server_href === `/server/${target}`, `the server link's href: ${server_href}`);
  const server_url = new URL(server_href, `${base_url}/`).href;
  const [server_response] = await Promise.all([
    page.waitForResponse((r) => r.url() === server_url && r.request().isNavigationRequest()),
    server_link.click(),
  ]);
  await page.waitForURL(server_url);
  await page.waitForLoadState('load');
  check(server_response.status() === 200, `GET ${server_href} answered ${server_response.status()}`);
  const server_csp = server_response.headers()['content-security-policy'] || '';
  check(/default-src 'none'/.test(server_csp) && !/unsafe-inline/.test(server_csp),
        `the server page's Content-Security-Policy: ${server_csp}`);

  step('the server page shows the hostile name as text in colour, and its state');
  const server_motd = page.locator('.motd').first();
  await server_motd.waitFor({ state: 'visible' });
  const server_name = await server_motd.textContent();
  check(server_name === hostile_clean, `the server page's name shown as "${server_name}"`);
  const server_red = server_motd.locator('span.mc-c');
  check(await server_red.count() >= 1, 'the server page\'s name is in a span with a colour class');
  if (await server_red.count() >= 1) {
    const look = await server_red.first().evaluate((e) => getComputedStyle(e).color);
    check(look === 'rgb(255, 85, 85)', `the server page's name coloured ${look}`);
  }
  check(await page.locator('.motd img, img[src="x"]').count() === 0,
        'no element was made from the name on the server page');
  check(await page.evaluate(() => window.__xss === undefined), 'the name\'s script never ran on the server page');
  const server_state = page.locator('.state').first();
  check(await server_state.isVisible(), 'the server page shows its state');
  check((await server_state.textContent()).trim() === 'Online',
        `the server page's state: ${await server_state.textContent()}`);
  check((await page.locator('.server-address').first().textContent()).trim() === target,
        `the server page's address: ${await page.locator('.server-address').first().textContent()}`);

  step('the server page at 1280 and 375 px: no sideways scroll, AA contrast');
  await no_horizontal_scroll('server page, 1280 px');
  low_contrast = await contrast_failures();
  check(low_contrast.length === 0, `text below AA contrast (server page, 1280 px): ${low_contrast.join('; ')}`);
  await shoot('server-1280');
  await page.setViewportSize({ width: 375, height: 812 });
  await no_horizontal_scroll('server page, 375 px');
  low_contrast = await contrast_failures();
  check(low_contrast.length === 0, `text below AA contrast (server page, 375 px): ${low_contrast.join('; ')}`);
  check(await page.locator('.state').first().isVisible(), 'the server page shows its state at 375 px');
  await shoot('server-375');
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${base_url}/`);

  step('no request left loopback, no console error');
  check(!requests.some((url) => /\/x$/.test(new URL(url).pathname)), 'the name\'s <img> was never loaded');
} catch (error) {
  failed = error;
  console.log(`FAIL: ${error.message}`);
  await shoot('failure').catch(() => {});
} finally {
  await context.close();
  rmSync(user_data_dir, { recursive: true, force: true });
}

if (failed || problems.length > 0) {
  console.log(`FAIL: ${problems.length} problem(s)${failed ? ' and a failed step' : ''}`);
  process.exit(1);
}
console.log('PASS: every step of the page test passed');
