#!/usr/bin/env node
// A NetherNet signalling target (PROTOCOL.md §1, §2) whose answers come from a WebRTC stack
// we did not write: werift (the TypeScript stack under node-nethernet) or libwebrtc (the
// engine in BDS, through @roamhq/wrtc). netherscope's tests send it our offer through the
// service and check that the stack answers, and that its candidates reach our result.
//
//   node target.js --stack werift|libwebrtc [--port 0] [--identity none|string|jwk]
//                  [--answer-timeout-ms 5000] [--gather-address 127.0.0.1]
//                  [--extra-candidate 'candidate:...'] (repeatable: appended to each answer,
//                  for a candidate whose port nothing answers on)
//                  [--protocol 2193] [--game normal|silent|garbage] [--setup active|passive]
//
// --setup passive rewrites the answer's a=setup before the stack takes it, so the stack is the
// DTLS server and the joining client the DTLS client (RFC 5763 lets an answer say either).
//
// Once a client joins, the channels speak the Bedrock prelude as a NetherNet server does
// (PROTOCOL.md "The join"): the client must open exactly ReliableDataChannel (ordered,
// reliable) and UnreliableDataChannel (unordered, maxRetransmits 0), or the connection is
// closed; RequestNetworkSettings on the reliable channel is answered with NetworkSettings at
// --protocol, or PlayStatus 1 (client older) or 2 (server older). --game silent answers
// nothing, --game garbage answers bytes that are no Bedrock batch.
//
// It listens on 127.0.0.1 only and prints one JSON line {"event":"listening","port":N} on
// stdout when ready. The stack gathers host candidates only (no STUN or TURN server, as the
// vanilla client and BDS), so it sends nothing anywhere unless our offer names a candidate.
'use strict';

const http = require('node:http');
const crypto = require('node:crypto');
const dgram = require('node:dgram');
const dns = require('node:dns');
const net = require('node:net');

// -- loopback only ------------------------------------------------------------

// Tests may send traffic to loopback only. werift resolves and queries a public STUN server
// unless told otherwise (see make_stack); these guards make sure nothing in this process,
// whatever a stack's defaults, sends a datagram or a name lookup anywhere else.
function is_loopback(address) {
  if (net.isIPv4(address))
    return address.startsWith('127.');
  return address === '::1' || address === 'localhost';
}

const original_send = dgram.Socket.prototype.send;
dgram.Socket.prototype.send = function guarded_send(...args) {
  // send(msg, [offset, length,] port, address, [callback])
  const address = args.find((a, i) => i > 0 && typeof a === 'string');
  if (address !== undefined && !is_loopback(address)) {
    process.stderr.write(`webrtc_target: dropped a datagram to ${address}\n`);
    const callback = args[args.length - 1];
    if (typeof callback === 'function')
      process.nextTick(callback, null, 0);
    return;
  }
  return original_send.apply(this, args);
};

for (const api of [dns, dns.promises]) {
  const original_lookup = api.lookup;
  api.lookup = function guarded_lookup(hostname, ...rest) {
    if (!is_loopback(hostname) && !net.isIP(hostname)) {
      const err = Object.assign(new Error(`lookup of ${hostname} refused`), { code: 'ENOTFOUND' });
      const callback = rest[rest.length - 1];
      if (typeof callback === 'function')
        return process.nextTick(callback, err);
      return Promise.reject(err);
    }
    return original_lookup.call(this, hostname, ...rest);
  };
}

// -- options ------------------------------------------------------------------

function parse_args(argv) {
  const opts = {
    stack: 'werift',
    port: 0,
    identity: 'string',
    answer_timeout_ms: 5000,
    gather_address: '127.0.0.1',
    extra_candidates: [],
    protocol: 2193,
    game: 'normal',
    setup: 'active',
    port_pool: 0,
    extra_ports: 0,
    max_sessions: 32,
  };
  for (let i = 0; i < argv.length; ++i) {
    const name = argv[i];
    const value = argv[i + 1];
    if (value === undefined)
      throw new Error(`${name} needs a value`);
    ++i;
    switch (name) {
      case '--stack': opts.stack = value; break;
      case '--port': opts.port = Number(value); break;
      case '--identity': opts.identity = value; break;
      case '--answer-timeout-ms': opts.answer_timeout_ms = Number(value); break;
      case '--gather-address': opts.gather_address = value; break;
      case '--extra-candidate': opts.extra_candidates.push(value); break;
      case '--protocol': opts.protocol = Number(value); break;
      case '--game': opts.game = value; break;
      case '--setup': opts.setup = value; break;
      case '--port-pool': opts.port_pool = Number(value); break;
      case '--extra-ports': opts.extra_ports = Number(value); break;
      case '--max-sessions': opts.max_sessions = Number(value); break;
      default: throw new Error(`unknown option ${name}`);
    }
  }
  if (!['werift', 'libwebrtc'].includes(opts.stack))
    throw new Error('--stack is werift or libwebrtc');
  if (!['none', 'string', 'jwk'].includes(opts.identity))
    throw new Error('--identity is none, string or jwk');
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535)
    throw new Error('--port is 0..65535');
  if (!['active', 'passive'].includes(opts.setup))
    throw new Error('--setup is active or passive');
  if (!['normal', 'silent', 'garbage'].includes(opts.game))
    throw new Error('--game is normal, silent or garbage');
  if (!Number.isInteger(opts.protocol) || opts.protocol < 0)
    throw new Error('--protocol is a protocol number');
  if (!Number.isInteger(opts.port_pool) || opts.port_pool < 0)
    throw new Error('--port-pool is 0 (unbounded) or the number of UDP ports');
  if (!Number.isInteger(opts.extra_ports) || opts.extra_ports < 0 || opts.extra_ports > 200)
    throw new Error('--extra-ports is 0..200 (more signalling ports, each a server of its own)');
  if (!Number.isInteger(opts.max_sessions) || opts.max_sessions < 1)
    throw new Error('--max-sessions is a positive number');
  if (!(opts.answer_timeout_ms > 0))
    throw new Error('--answer-timeout-ms must be positive');
  return opts;
}

// -- the stacks ---------------------------------------------------------------

// Each stack is asked the same thing: take an offer, give back the complete answer SDP once
// gathering has finished (no trickle: NetherNet sends all candidates in one answer).
function make_stack(opts) {
  if (opts.stack === 'werift') {
    const { RTCPeerConnection } = require('werift');
    return {
      name: 'werift',
      // werift gives every ICE connection a Google STUN server even with iceServers: [],
      // and queries it while gathering; the vanilla client and BDS use none (PROTOCOL.md
      // §3.1). Clear it on each transport before gathering starts, as node-nethernet does.
      before_gathering(pc) {
        for (const transport of pc.iceTransports)
          transport.connection.stunServer = undefined;
      },
      create() {
        // werift leaves loopback out when it gathers; on a loopback-only test machine
        // every answer would have zero candidates whatever our offer says, so name it.
        return new RTCPeerConnection({
          iceServers: [],
          iceUseIpv4: true,
          iceUseIpv6: false,
          iceAdditionalHostAddresses: [opts.gather_address],
          iceInterfaceAddresses: { udp4: opts.gather_address },
        });
      },
    };
  }
  const wrtc = require('@roamhq/wrtc');
  return {
    name: 'libwebrtc',
    before_gathering() {
      // nop: libwebrtc queries no STUN server unless it is given one
    },
    create() {
      return new wrtc.RTCPeerConnection({ iceServers: [] });
    },
  };
}

/// Resolves when the connection has gathered every candidate, or after ms.
function gathering_complete(pc, ms) {
  return new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete')
      return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    const check = () => {
      if (pc.iceGatheringState === 'complete') {
        clearTimeout(timer);
        resolve(true);
      }
    };
    if (typeof pc.addEventListener === 'function')
      pc.addEventListener('icegatheringstatechange', check);
    if (pc.onIceGatheringStateChange && pc.onIceGatheringStateChange.subscribe)
      pc.onIceGatheringStateChange.subscribe(check);
    pc.onicecandidate = (event) => {
      if (!event || !event.candidate)
        check();
    };
  });
}

/// Rejects after ms with a NetherNet-style timeout.
function deadline(ms) {
  return new Promise((_, reject) => {
    setTimeout(() => reject(Object.assign(new Error('timeout'), { timeout: true })), ms).unref();
  });
}

// -- the a=identity attribute (PROTOCOL.md §2.3, the self-signed server shape) --

const identity_key = crypto.generateKeyPairSync('ec', { namedCurve: 'P-384' });
const spki_der = identity_key.publicKey.export({ type: 'spki', format: 'der' });

function b64url(buf) {
  return Buffer.from(buf).toString('base64url');
}

function es384(data) {
  return crypto.sign('sha384', Buffer.from(data), {
    key: identity_key.privateKey,
    dsaEncoding: 'ieee-p1363',
  });
}

/// The a=identity value for an SDP with the given sha-256 fingerprints, cpk in either form.
function identity_value(fingerprints, cpk_form) {
  const now = Math.floor(Date.now() / 1000);
  const cpk = cpk_form === 'jwk'
    ? (({ crv, kty, x, y }) => ({ crv, kty, x, y }))(identity_key.publicKey.export({ format: 'jwk' }))
    : spki_der.toString('base64');
  const header = b64url(JSON.stringify({ alg: 'ES384', x5u: spki_der.toString('base64') }));
  const payload = b64url(JSON.stringify({ cpk, exp: now + 60, iat: now }));
  const token = `${header}.${payload}.${b64url(es384(`${header}.${payload}`))}`;
  const canonical = JSON.stringify({
    fingerprint: fingerprints.map((digest) => ({ algorithm: 'sha-256', digest })),
  });
  const jws_header = b64url(JSON.stringify({ alg: 'ES384' }));
  const detached = `${jws_header}..${b64url(es384(`${jws_header}.${b64url(canonical)}`))}`;
  const assertion = JSON.stringify({ fingerprints: detached, token });
  return Buffer.from(JSON.stringify({ assertion, idp: { domain: 'self', protocol: 'default' } }))
    .toString('base64');
}

/// The answer with a session-level a=identity after its fingerprints, before the first m=.
function add_identity(sdp, cpk_form) {
  const lines = sdp.split(/\r\n|\n/).filter((l) => l.length > 0);
  const fingerprints = lines
    .filter((l) => l.toLowerCase().startsWith('a=fingerprint:sha-256 '))
    .map((l) => l.slice('a=fingerprint:sha-256 '.length).trim());
  const attr = `a=identity:${identity_value(fingerprints, cpk_form)}`;
  const first_media = lines.findIndex((l) => l.startsWith('m='));
  lines.splice(first_media < 0 ? lines.length : first_media, 0, attr);
  return lines.join('\r\n') + '\r\n';
}

// -- the Bedrock prelude on the channels (PROTOCOL.md "NetherNet framing") -------

/// The bytes of a channel message, whatever form the stack hands them in.
function bytes_of(data) {
  if (Buffer.isBuffer(data))
    return data;
  if (data instanceof ArrayBuffer)
    return Buffer.from(data);
  if (ArrayBuffer.isView(data))
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(String(data), 'utf8');
}

/// Reads an unsigned LEB128 varint at pos: [value, next pos], or null.
function varuint(buf, pos) {
  let value = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (pos >= buf.length)
      return null;
    const b = buf[pos++];
    value += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0)
      return [value, pos];
  }
  return null;
}

/// The client protocol of a RequestNetworkSettings message (segment header, batch, packet), or
/// null when the message is something else.
function requested_protocol(msg) {
  if (msg.length < 2 || msg[0] !== 0)
    return null;
  const length = varuint(msg, 1);
  if (!length)
    return null;
  const header = varuint(msg, length[1]);
  if (!header || (header[0] & 0x3ff) !== 193 || header[1] + 4 > msg.length)
    return null;
  return msg.readInt32BE(header[1]);
}

/// One packet as a whole NetherNet message: segment header 0, then a one-packet batch.
function message_of(packet) {
  return Buffer.concat([Buffer.from([0, packet.length]), packet]);
}

function network_settings() {
  const p = Buffer.alloc(2 + 2 + 2 + 1 + 1 + 4);
  p.set([0x8f, 0x01], 0);
  p.writeUInt16LE(1, 2);    // compression threshold
  p.writeUInt16LE(0, 4);    // zlib
  p.writeFloatLE(0, 8);     // throttle off: bool 0, threshold 0, scalar 0
  return message_of(p);
}

function play_status(status) {
  const p = Buffer.alloc(5);
  p[0] = 0x02;
  p.writeInt32BE(status, 1);
  return message_of(p);
}

/// What the target expects of each channel, as go-nethernet checks it.
const expected_channels = {
  ReliableDataChannel: { ordered: true, maxRetransmits: null },
  UnreliableDataChannel: { ordered: false, maxRetransmits: 0 },
};

function channel_ok(channel) {
  const want = expected_channels[channel.label];
  if (!want || (channel.protocol || '') !== '')
    return false;
  if (channel.ordered !== undefined && channel.ordered !== want.ordered)
    return false;
  const retransmits = channel.maxRetransmits === undefined ? null : channel.maxRetransmits;
  return retransmits === want.maxRetransmits
    || (want.maxRetransmits === null && retransmits === 65535);
}

/// Sends on a channel once it is open: a message can arrive while the stack still reports the
/// channel as connecting (libwebrtc under load), and a send then would throw.
function reply(channel, data, stats) {
  const send = () => {
    try {
      channel.send(data);
      stats.replies += 1;
    } catch (err) {
      stats.send_failures += 1;
      process.stderr.write(`webrtc_target: send failed: ${err}\n`);
    }
  };
  if (channel.readyState === undefined || channel.readyState === 'open')
    return send();
  if (typeof channel.addEventListener === 'function')
    return channel.addEventListener('open', send, { once: true });
  if (channel.stateChanged && typeof channel.stateChanged.subscribe === 'function') {
    const sub = channel.stateChanged.subscribe((state) => {
      if (state === 'open') {
        sub.unSubscribe();
        send();
      }
    });
    return;
  }
  send();
}

/// Serves the prelude on a connection's channels; stats counts what happened.
function serve_prelude(pc, opts, stats) {
  const on_channel = (channel) => {
    stats.channels.push({
      label: channel.label, ordered: channel.ordered, maxRetransmits: channel.maxRetransmits,
      protocol: channel.protocol || '',
    });
    if (!channel_ok(channel)) {
      stats.refused_channels += 1;
      setTimeout(() => { try { pc.close(); } catch (_) { /* closed */ } }, 10);
      return;
    }
    if (channel.label !== 'ReliableDataChannel')
      return;
    const on_message = (event) => {
      const msg = bytes_of(event && event.data !== undefined ? event.data : event);
      const protocol = requested_protocol(msg);
      if (protocol === null)
        return;
      stats.requests.push(protocol);
      if (opts.game === 'silent')
        return;
      if (opts.game === 'garbage')
        return reply(channel, Buffer.from([0, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]), stats);
      if (protocol < opts.protocol)
        return reply(channel, play_status(1), stats);
      if (protocol > opts.protocol)
        return reply(channel, play_status(2), stats);
      reply(channel, network_settings(), stats);
    };
    if (channel.message && typeof channel.message.subscribe === 'function')
      channel.message.subscribe((data) => on_message({ data }));
    else
      channel.onmessage = on_message;
  };
  if (pc.onDataChannel && typeof pc.onDataChannel.subscribe === 'function')
    pc.onDataChannel.subscribe(on_channel);
  else
    pc.ondatachannel = (event) => on_channel(event.channel);
}

// -- the signalling server ----------------------------------------------------

const max_offer_bytes = 1024 * 1024;

function main() {
  let opts;
  try {
    opts = parse_args(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`webrtc_target: ${err.message}\n`);
    process.exit(2);
  }
  const stack = make_stack(opts);
  const sessions = new Set();
  const stats = {
    offers: 0, answers: 0, failures: 0, timeouts: 0, candidates: 0, last_answer: '',
    channels: [], refused_channels: 0, requests: [], pool_refusals: 0, replies: 0, send_failures: 0,
    // The stack's own time from a whole offer to its answer (gathering included), in ms; the
    // latest 10,000 answers.
    answer_ms: [],
  };

  function send(res, status, type, body) {
    res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }

  // With --port-pool N, at most N connections hold a port. An offer past that is answered as
  // BDS answers one when server-udp-ports is used up: with the ports already held, under the
  // new session's credentials, so checks to them go unanswered (PROTOCOL.md §2.6).
  const holders = [];

  function release(holder) {
    const i = holders.indexOf(holder);
    if (i >= 0)
      holders.splice(i, 1);
  }

  async function answer_from_pool(offer_sdp) {
    const pc = stack.create();
    try {
      const stripped = offer_sdp.split(/\r\n|\n/).filter((l) => !l.startsWith('a=identity:'))
        .join('\r\n');
      await pc.setRemoteDescription({ type: 'offer', sdp: stripped });
      const local = await pc.createAnswer();
      const held = await holders[0].candidates;
      stats.pool_refusals += 1;
      const lines = local.sdp.split(/\r\n|\n/).filter((l) => l.length > 0
        && !l.startsWith('a=candidate:') && !l.startsWith('a=end-of-candidates'));
      const sdp = lines.concat(held).join('\r\n') + '\r\n';
      return opts.identity !== 'none' ? add_identity(sdp, opts.identity) : sdp;
    } finally {
      try { pc.close(); } catch (_) { /* closed */ }
    }
  }

  async function answer(offer_sdp) {
    if (opts.port_pool > 0 && holders.length >= opts.port_pool)
      return answer_from_pool(offer_sdp);
    const holder = {};
    let got_candidates;
    holder.candidates = new Promise((resolve) => { got_candidates = resolve; });
    if (opts.port_pool > 0)
      holders.push(holder);
    try {
      return await answer_holding(offer_sdp, holder, got_candidates);
    } catch (err) {
      release(holder);
      got_candidates([]);
      throw err;
    }
  }

  async function answer_holding(offer_sdp, holder, got_candidates) {
    const pc = stack.create();
    sessions.add(pc);
    serve_prelude(pc, opts, stats);
    // A session lives long enough for connectivity checks, then its sockets are released.
    setTimeout(() => {
      sessions.delete(pc);
      release(holder);
      try { pc.close(); } catch (_) { /* already closed */ }
    }, 15000).unref();
    // The port is free again once the player has left.
    const on_state = () => {
      if (['closed', 'failed', 'disconnected'].includes(pc.connectionState)) {
        release(holder);
        sessions.delete(pc);
      }
    };
    if (typeof pc.addEventListener === 'function')
      pc.addEventListener('connectionstatechange', on_state);
    if (pc.connectionStateChange && typeof pc.connectionStateChange.subscribe === 'function')
      pc.connectionStateChange.subscribe(on_state);
    // Servers strip a=identity before handing the offer to their stack (PROTOCOL.md §2.3).
    const stripped = offer_sdp.split(/\r\n|\n/).filter((l) => !l.startsWith('a=identity:'))
      .join('\r\n');
    await pc.setRemoteDescription({ type: 'offer', sdp: stripped });
    const local = await pc.createAnswer();
    if (opts.setup === 'passive')
      local.sdp = local.sdp.replace(/a=setup:active/g, 'a=setup:passive');
    stack.before_gathering(pc);
    await pc.setLocalDescription(local);
    await gathering_complete(pc, opts.answer_timeout_ms);
    let sdp = pc.localDescription.sdp;
    // Lines of our own after the stack's candidates, in its media section (the last one).
    for (const extra of opts.extra_candidates)
      sdp = sdp.replace(/(\r\n|\n)?$/, `\r\na=${extra}\r\n`);
    const candidates = sdp.split(/\r\n|\n/).filter((l) => l.startsWith('a=candidate:'));
    got_candidates(candidates);
    stats.candidates += candidates.length;
    if (opts.identity !== 'none')
      sdp = add_identity(sdp, opts.identity);
    return sdp;
  }

  const handle = (req, res) => {
    const url = new URL(req.url, 'http://target');
    if (req.method === 'GET' && url.pathname === '/v1/join') {
      return send(res, 200, 'application/json',
        JSON.stringify({
          name: `webrtc_target (${stack.name})`, protocol: opts.protocol, version: '1.26.51',
          stack: stack.name,
        }));
    }
    if (req.method === 'GET' && url.pathname === '/_target/stats')
      return send(res, 200, 'application/json', JSON.stringify(stats));
    const match = /^\/v1\/join\/([0-9]{1,20})$/.exec(url.pathname);
    if (req.method !== 'POST' || !match)
      return send(res, 404, 'text/plain', 'Not found');
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > max_offer_bytes) {
        send(res, 413, 'text/plain', 'SDP offer is too large');
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.writableEnded)
        return;
      stats.offers += 1;
      const offer = Buffer.concat(chunks).toString('utf8');
      if (offer.length === 0)
        return send(res, 400, 'text/plain', 'Missing SDP offer in request body');
      if (sessions.size >= opts.max_sessions)
        return send(res, 503, 'text/plain', 'Service unavailable');
      // Error bodies follow go-nethernet, which most third-party servers copy (§2.4).
      const started = process.hrtime.bigint();
      Promise.race([answer(offer), deadline(opts.answer_timeout_ms)]).then(
        (sdp) => {
          stats.answers += 1;
          if (stats.answer_ms.length >= 10000)
            stats.answer_ms.shift();
          stats.answer_ms.push(Number(process.hrtime.bigint() - started) / 1e6);
          stats.last_answer = sdp;
          send(res, 200, 'application/sdp', sdp);
        },
        (err) => {
          if (err && err.timeout) {
            stats.timeouts += 1;
            return send(res, 502, 'text/plain', 'Timed out waiting for answer');
          }
          stats.failures += 1;
          process.stderr.write(`webrtc_target: ${stack.name} refused the offer: ${err}\n`);
          send(res, 400, 'text/plain', 'Negotiation failed with error code: 13');
        });
    });
  };
  // With --extra-ports, the same stack behind more signalling ports: to the service each is a
  // server of its own (the per-target offer limit counts per address and port).
  const servers = [];
  for (let i = 0; i <= opts.extra_ports; ++i)
    servers.push(http.createServer(handle));
  let listening = 0;
  for (const [i, server] of servers.entries()) {
    server.listen(i === 0 ? opts.port : 0, '127.0.0.1', () => {
      if (++listening < servers.length)
        return;
      const ports = servers.map((s) => s.address().port);
      process.stdout.write(JSON.stringify({
        event: 'listening', port: ports[0], ports, stack: stack.name,
      }) + '\n');
    });
  }
  const stop = () => {
    for (const server of servers)
      server.close();
    for (const pc of sessions) {
      try { pc.close(); } catch (_) { /* already closed */ }
    }
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main();
