// Drives read receipts and send statuses through hearth's fake Beeper with
// the official TypeScript SDK, @beeper/desktop-api 5.0.0: the owner's
// message as messages.list and messages.search decode it, `sendStatus`
// (resources/shared.d.ts Message.SendStatus) and `seen` in each shape SDK
// 5 declares (a boolean, a timestamp, a map of user ID to either), set with
// the fake's POST /_fake/seen; and chats.update's compare-and-set of a
// chat's composer draft. e2e/beeper_sdk_seen_test.go runs it with
// HEARTH_BEEPER_SDK_DIR, BEEPER_BASE_URL and BEEPER_ACCESS_TOKEN and reads
// the one JSON line it prints.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.HEARTH_BEEPER_SDK_DIR, 'package.json'));
const { VERSION } = require('@beeper/desktop-api/version');
assert.equal(VERSION, '5.0.0', 'the pinned SDK version');
const { default: BeeperDesktop } = require('@beeper/desktop-api');

const baseURL = process.env.BEEPER_BASE_URL;
const token = process.env.BEEPER_ACCESS_TOKEN;
const client = new BeeperDesktop({ maxRetries: 0, timeout: 15_000 });
const ANA = '!ana-okafor:beeper.local';
const TOMAS = '!tomas-lindqvist:beeper.local';
const ANA_USER = '@ana:beeper.local';

const isoRE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const iso = (v, w) => assert.ok(typeof v === 'string' && isoRE.test(v), `${w} must be an ISO 8601 string, got ${JSON.stringify(v)}`);

// shared.d.ts Message.SendStatus
function checkSendStatus(st, w) {
  assert.equal(typeof st, 'object', `${w} is an object in SDK 5`);
  assert.ok(['SUCCESS', 'PENDING', 'FAIL_RETRIABLE', 'FAIL_PERMANENT'].includes(st.status), `${w}.status is ${JSON.stringify(st.status)}`);
  iso(st.timestamp, `${w}.timestamp`);
  if (st.deliveredToUsers !== undefined) {
    assert.ok(Array.isArray(st.deliveredToUsers) && st.deliveredToUsers.every((u) => typeof u === 'string'), `${w}.deliveredToUsers is a list of user IDs`);
  }
  for (const k of ['internalError', 'message', 'reason']) {
    assert.ok(st[k] === undefined || typeof st[k] === 'string', `${w}.${k} must be a string`);
  }
}

// shared.d.ts Message.seen: boolean | string | { [userID]: boolean | string }
function checkSeen(seen, w) {
  if (seen === undefined || typeof seen === 'boolean') return;
  if (typeof seen === 'string') return iso(seen, w);
  assert.ok(seen !== null && typeof seen === 'object' && !Array.isArray(seen), `${w} is ${JSON.stringify(seen)}`);
  for (const [user, v] of Object.entries(seen)) {
    if (typeof v !== 'boolean') iso(v, `${w}[${user}]`);
  }
}

async function control(route, body) {
  const res = await fetch(baseURL + route, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, `fake control ${route}: ${res.status} ${await res.text()}`);
}

// The message with id, as messages.list and messages.search each decode it.
async function listed(id) {
  for await (const m of client.messages.list(ANA)) if (m.id === id) return m;
  assert.fail(`messages.list does not show ${id}`);
}
async function searched(id) {
  for await (const m of client.messages.search({ chatIDs: [ANA], query: 'tide', sender: 'me' })) if (m.id === id) return m;
  assert.fail(`messages.search does not find ${id}`);
}

const sent = await client.messages.send(ANA, { text: 'Tide tables checked: low tide at nine' });
const id = (await client.messages.retrieve(sent.pendingMessageID, { chatID: ANA })).id;
for (const [how, m] of [['messages.list', await listed(id)], ['messages.search', await searched(id)]]) {
  checkSendStatus(m.sendStatus, `${how} sendStatus`);
  assert.equal(m.sendStatus.status, 'SUCCESS', `${how}: the fake delivers an unheld send at once`);
  assert.deepEqual(m.sendStatus.deliveredToUsers, [ANA_USER], `${how}: delivered to Ana`);
  assert.equal(m.seen, undefined, `${how}: no read receipt before the network reports one`);
}

const shapes = {
  flag: true,
  time: '2026-03-11T09:05:00.000Z',
  byUser: { [ANA_USER]: '2026-03-11T09:07:00.000Z' },
  byUserFlag: { [ANA_USER]: true },
};
for (const [name, seen] of Object.entries(shapes)) {
  await control('/_fake/seen', { chatId: ANA, messageId: id, seen });
  for (const [how, m] of [['messages.list', await listed(id)], ['messages.search', await searched(id)]]) {
    checkSeen(m.seen, `${how} seen (${name})`);
    assert.deepEqual(m.seen, seen, `${how} decodes the ${name} receipt as the network reported it`);
    checkSendStatus(m.sendStatus, `${how} sendStatus (${name})`);
  }
}

// chats.update: a draft only into an empty composer, draft=null clears it.
const set = await client.chats.update(TOMAS, { draft: { text: 'Booked for Friday' } });
assert.equal(set.draft?.text, 'Booked for Friday');
let refused;
try {
  await client.chats.update(TOMAS, { draft: { text: 'Over it' } });
} catch (err) {
  refused = err;
}
assert.ok(refused instanceof BeeperDesktop.APIError && refused.status >= 400 && refused.status < 500, `a busy composer refuses a draft, got ${refused}`);
assert.equal((await client.chats.retrieve(TOMAS)).draft?.text, 'Booked for Friday', 'a refused set leaves the draft');
const cleared = await client.chats.update(TOMAS, { draft: null });
assert.ok(cleared.draft === undefined || cleared.draft === null, `draft=null clears it, got ${JSON.stringify(cleared.draft)}`);

console.log(JSON.stringify({ messageId: id, refusedStatus: refused.status }));
