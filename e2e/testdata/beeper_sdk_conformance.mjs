// Drives hearth's fake Beeper Desktop (beeper/beepertest) through the official
// TypeScript SDK, @beeper/desktop-api 5.0.0, and checks that what the SDK
// parses has the shapes its declared types promise (resources/*.d.ts). The
// SDK does not validate responses at run time, so the checks below do, field
// by field. e2e/beeper_sdk_test.go installs the SDK and runs this with:
//   HEARTH_BEEPER_SDK_DIR  where the SDK is installed (node_modules inside)
//   BEEPER_BASE_URL, BEEPER_ACCESS_TOKEN  read by the SDK itself
// It prints one JSON line of results for the Go test and exits non-zero on
// the first disagreement.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';

const major = Number(process.versions.node.split('.')[0]);
assert.ok(major >= 18, `the SDK needs Node 18 or newer (fetch); this is ${process.versions.node}`);

const require = createRequire(path.join(process.env.HEARTH_BEEPER_SDK_DIR, 'package.json'));
const { VERSION } = require('@beeper/desktop-api/version');
assert.equal(VERSION, '5.0.0', 'the pinned SDK version');
const {
  default: BeeperDesktop,
  AuthenticationError,
  BadRequestError,
  NotFoundError,
} = require('@beeper/desktop-api');

const baseURL = process.env.BEEPER_BASE_URL;
const token = process.env.BEEPER_ACCESS_TOKEN;
// No retries: a disagreement must surface, and a send must never be repeated.
const client = new BeeperDesktop({ maxRetries: 0, timeout: 15_000 });
assert.equal(client.baseURL, baseURL, 'the SDK reads BEEPER_BASE_URL');

const ANA = '!ana-okafor:beeper.local';
const TOMAS = '!tomas-lindqvist:beeper.local';
const CREW = '!climbing-crew:beeper.local';

// ---- shape checks, one per declared type ----
const isStr = (v) => typeof v === 'string';
function str(v, what) {
  assert.equal(typeof v, 'string', `${what} must be a string, got ${JSON.stringify(v)}`);
}
function optStr(v, what) {
  if (v !== undefined) str(v, what);
}
function optNullStr(v, what) {
  if (v !== undefined && v !== null) str(v, what);
}
function bool(v, what) {
  assert.equal(typeof v, 'boolean', `${what} must be a boolean, got ${JSON.stringify(v)}`);
}
function optBool(v, what) {
  if (v !== undefined) bool(v, what);
}
function num(v, what) {
  assert.equal(typeof v, 'number', `${what} must be a number, got ${JSON.stringify(v)}`);
}
function optNum(v, what) {
  if (v !== undefined) num(v, what);
}
function oneOf(v, allowed, what) {
  assert.ok(allowed.includes(v), `${what} must be one of ${allowed.join('|')}, got ${JSON.stringify(v)}`);
}
function obj(v, what) {
  assert.ok(v !== null && typeof v === 'object' && !Array.isArray(v), `${what} must be an object, got ${JSON.stringify(v)}`);
}
function arr(v, what) {
  assert.ok(Array.isArray(v), `${what} must be an array, got ${JSON.stringify(v)}`);
}
function iso(v, what) {
  str(v, what);
  assert.match(v, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/, `${what} must be ISO 8601`);
}
function optIso(v, what) {
  if (v !== undefined) iso(v, what);
}

// shared.ts User
function checkUser(u, w) {
  obj(u, w);
  str(u.id, `${w}.id`);
  for (const k of ['email', 'fullName', 'imgURL', 'phoneNumber', 'username']) optStr(u[k], `${w}.${k}`);
  for (const k of ['cannotMessage', 'isSelf']) optBool(u[k], `${w}.${k}`);
}

// accounts.ts Account
function checkAccount(a, w) {
  obj(a, w);
  str(a.accountID, `${w}.accountID`);
  obj(a.bridge, `${w}.bridge`);
  str(a.bridge.id, `${w}.bridge.id`);
  oneOf(a.bridge.provider, ['cloud', 'self-hosted', 'local', 'platform-sdk'], `${w}.bridge.provider`);
  str(a.bridge.type, `${w}.bridge.type`);
  checkUser(a.user, `${w}.user`);
  optStr(a.network, `${w}.network`);
}

// info.ts InfoRetrieveResponse
function checkInfo(i) {
  obj(i, 'info');
  for (const k of ['bundle_id', 'name', 'version']) str(i.app?.[k], `info.app.${k}`);
  for (const k of ['mcp', 'spec', 'ws_events']) str(i.endpoints?.[k], `info.endpoints.${k}`);
  for (const k of ['authorization_endpoint', 'introspection_endpoint', 'registration_endpoint', 'revocation_endpoint', 'token_endpoint', 'userinfo_endpoint']) {
    str(i.endpoints?.oauth?.[k], `info.endpoints.oauth.${k}`);
  }
  str(i.platform?.arch, 'info.platform.arch');
  str(i.platform?.os, 'info.platform.os');
  optStr(i.platform?.release, 'info.platform.release');
  for (const k of ['base_url', 'hostname', 'status']) str(i.server?.[k], `info.server.${k}`);
  num(i.server?.port, 'info.server.port');
  bool(i.server?.mcp_enabled, 'info.server.mcp_enabled');
  bool(i.server?.remote_access, 'info.server.remote_access');
}

// shared.ts Message.SendStatus
function checkSendStatus(s, w) {
  obj(s, w);
  oneOf(s.status, ['SUCCESS', 'PENDING', 'FAIL_RETRIABLE', 'FAIL_PERMANENT'], `${w}.status`);
  iso(s.timestamp, `${w}.timestamp`);
  if (s.deliveredToUsers !== undefined) {
    arr(s.deliveredToUsers, `${w}.deliveredToUsers`);
    s.deliveredToUsers.forEach((u, i) => str(u, `${w}.deliveredToUsers[${i}]`));
  }
  for (const k of ['internalError', 'message', 'reason']) optStr(s[k], `${w}.${k}`);
}

// shared.ts Message
function checkMessage(m, w) {
  obj(m, w);
  for (const k of ['id', 'accountID', 'chatID', 'senderID', 'sortKey']) str(m[k], `${w}.${k}`);
  iso(m.timestamp, `${w}.timestamp`);
  optIso(m.editedTimestamp, `${w}.editedTimestamp`);
  for (const k of ['isDeleted', 'isHidden', 'isSender', 'isUnread']) optBool(m[k], `${w}.${k}`);
  for (const k of ['linkedMessageID', 'senderName', 'text']) optStr(m[k], `${w}.${k}`);
  for (const k of ['attachments', 'links', 'reactions']) if (m[k] !== undefined) arr(m[k], `${w}.${k}`);
  if (m.mentions !== undefined && m.mentions !== null) arr(m.mentions, `${w}.mentions`);
  if (m.type !== undefined) {
    oneOf(m.type, ['TEXT', 'NOTICE', 'IMAGE', 'VIDEO', 'VOICE', 'AUDIO', 'FILE', 'STICKER', 'LOCATION', 'REACTION'], `${w}.type`);
  }
  if (m.sendStatus !== undefined) checkSendStatus(m.sendStatus, `${w}.sendStatus`);
}

// chats.ts Chat, and ChatListResponse when withPreview
function checkChat(c, w, withPreview = false) {
  obj(c, w);
  for (const k of ['id', 'accountID', 'network', 'title']) str(c[k], `${w}.${k}`);
  oneOf(c.type, ['single', 'group'], `${w}.type`);
  num(c.unreadCount, `${w}.unreadCount`);
  obj(c.participants, `${w}.participants`);
  bool(c.participants.hasMore, `${w}.participants.hasMore`);
  num(c.participants.total, `${w}.participants.total`);
  arr(c.participants.items, `${w}.participants.items`);
  c.participants.items.forEach((u, i) => {
    checkUser(u, `${w}.participants.items[${i}]`);
    for (const k of ['isAdmin', 'isNetworkBot', 'isPending']) optBool(u[k], `${w}.participants.items[${i}].${k}`);
  });
  for (const k of ['isArchived', 'isLowPriority', 'isMarkedUnread', 'isMuted', 'isPinned', 'isReadOnly']) optBool(c[k], `${w}.${k}`);
  optIso(c.lastActivity, `${w}.lastActivity`);
  optStr(c.lastReadMessageSortKey, `${w}.lastReadMessageSortKey`);
  for (const k of ['description', 'imgURL', 'localChatID']) optNullStr(c[k], `${w}.${k}`);
  optNum(c.unreadMentionsCount, `${w}.unreadMentionsCount`);
  if (withPreview) {
    if (c.preview !== undefined) checkMessage(c.preview, `${w}.preview`);
  } else {
    assert.equal(c.preview, undefined, `${w} is a Chat, not a ChatListResponse: no preview`);
  }
}

// pagination.ts CursorNoLimit / CursorSearch, as one page
function checkPage(p, w) {
  arr(p.items, `${w}.items`);
  bool(p.hasMore, `${w}.hasMore`);
  for (const k of ['oldestCursor', 'newestCursor']) {
    assert.ok(p[k] === null || isStr(p[k]), `${w}.${k} must be a string or null, got ${JSON.stringify(p[k])}`);
  }
}

// Every page of a list call through the SDK's own pagination, checked.
async function allPages(pagePromise, w, check) {
  const pages = [];
  for await (const page of (await pagePromise).iterPages()) {
    checkPage(page, `${w} page ${pages.length + 1}`);
    page.items.forEach((it, i) => check(it, `${w} page ${pages.length + 1} items[${i}]`));
    pages.push(page.items);
  }
  return { pages: pages.length, items: pages.flat() };
}

// The fake's own control routes (not Beeper's API).
async function control(route, body) {
  const res = await fetch(baseURL + route, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, 200, `control ${route}: ${text}`);
  return JSON.parse(text);
}

async function rejects(promise, Class, status, what) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof Class, `${what}: got ${err?.constructor?.name}: ${err?.message}`);
    assert.equal(err.status, status, `${what}: status`);
    obj(err.error, `${what}: error body`);
    str(err.error.code, `${what}: error.code`);
    str(err.error.message, `${what}: error.message`);
    return true;
  });
}

const ids = (items) => items.map((x) => x.id);
const out = {};

// info: discovery needs no token (the SDK sends none), so a wrong one does not matter.
const info = await new BeeperDesktop({ accessToken: 'not-the-token', maxRetries: 0 }).info.retrieve();
checkInfo(info);
assert.equal(info.server.base_url, baseURL, 'info.server.base_url');

// accounts
const accounts = await client.accounts.list();
arr(accounts, 'accounts');
accounts.forEach((a, i) => checkAccount(a, `accounts[${i}]`));
assert.deepEqual(accounts.map((a) => [a.accountID, a.bridge.provider]), [['whatsapp-demo', 'local']]);

// chats list, every page (the Go test serves two chats a page)
const listed = await allPages(client.chats.list(), 'chats.list', (c, w) => checkChat(c, w, true));
assert.ok(listed.pages >= 2, `chats.list should span pages, got ${listed.pages}`);
assert.deepEqual(ids(listed.items), [ANA, TOMAS, CREW], 'chats.list, most recent activity first');
assert.ok(listed.items.every((c) => c.preview), 'every listed chat has a preview');
const listedAna = await allPages(client.chats.list({ accountIDs: ['whatsapp-demo'] }), 'chats.list accountIDs', (c, w) => checkChat(c, w, true));
assert.equal(listedAna.items.length, 3);
assert.equal((await client.chats.list({ accountIDs: ['nope'] })).items.length, 0, 'chats.list of an unknown account');

// chats search: pagination by limit, scope, includeMuted, lastActivity, inbox
const searchAll = await allPages(client.chats.search({ limit: 1 }), 'chats.search limit 1', (c, w) => checkChat(c, w));
assert.equal(searchAll.pages, 3, 'chats.search with limit 1 pages three times');
assert.deepEqual(ids(searchAll.items), [ANA, TOMAS, CREW]);
const search = async (q) => ids((await allPages(client.chats.search(q), `chats.search ${JSON.stringify(q)}`, (c, w) => checkChat(c, w))).items);
assert.deepEqual(await search({ query: 'ana', scope: 'titles' }), [ANA]);
assert.deepEqual(await search({ query: 'ana', scope: 'participants' }), [ANA, CREW]);
assert.deepEqual(await search({ includeMuted: false }), [ANA, TOMAS]);
assert.deepEqual(await search({ type: 'group' }), [CREW]);
assert.deepEqual(await search({ unreadOnly: true }), [ANA]);
const anaChat = listed.items[0];
assert.deepEqual(await search({ lastActivityBefore: anaChat.lastActivity }), [TOMAS, CREW]);
assert.deepEqual(await search({ lastActivityAfter: listed.items[1].lastActivity }), [ANA]);
await rejects(client.chats.search({ scope: 'everything' }), BadRequestError, 400, 'chats.search with a bad scope');

// one chat, by its raw Matrix room ID (the SDK escapes it its own way)
const ana = await client.chats.retrieve(ANA);
checkChat(ana, 'chats.retrieve');
assert.equal(ana.participants.items.length, 2);
await rejects(client.chats.retrieve('!nope:beeper.local'), NotFoundError, 404, 'chats.retrieve of an unknown chat');

// messages list, every page
const msgs = await allPages(client.messages.list(ANA), 'messages.list', checkMessage);
assert.deepEqual(ids(msgs.items).sort(), ['m-ana-1', 'm-ana-2', 'm-ana-3']);
assert.ok(msgs.pages >= 2, `messages.list should span pages, got ${msgs.pages}`);

// send, held by Beeper: PENDING under the pending ID, FAIL_RETRIABLE, then SUCCESS under a final ID
await control('/_fake/hold-sends', { hold: true });
const sent = await client.messages.send(ANA, { text: 'Saturday works, see you at 8', replyToMessageID: 'm-ana-3' });
obj(sent, 'messages.send');
str(sent.chatID, 'messages.send.chatID');
str(sent.pendingMessageID, 'messages.send.pendingMessageID');
assert.equal(sent.chatID, ANA);
const pending = await client.messages.retrieve(sent.pendingMessageID, { chatID: ANA });
checkMessage(pending, 'messages.retrieve (pending)');
assert.equal(typeof pending.sendStatus, 'object', 'sendStatus is an object in SDK 5');
assert.equal(pending.sendStatus.status, 'PENDING');
assert.equal(pending.id, sent.pendingMessageID);
assert.equal(pending.isSender, true);
assert.equal(pending.linkedMessageID, 'm-ana-3');
await control('/_fake/send-status', { chatId: ANA, messageId: sent.pendingMessageID, status: 'FAIL_RETRIABLE', message: 'Waiting for the phone' });
const retrying = await client.messages.retrieve(sent.pendingMessageID, { chatID: ANA });
checkMessage(retrying, 'messages.retrieve (retrying)');
assert.deepEqual([retrying.sendStatus.status, retrying.sendStatus.message], ['FAIL_RETRIABLE', 'Waiting for the phone']);
await control('/_fake/send-status', { chatId: ANA, messageId: sent.pendingMessageID, status: 'SUCCESS' });
const delivered = await client.messages.retrieve(sent.pendingMessageID, { chatID: ANA });
checkMessage(delivered, 'messages.retrieve (delivered)');
assert.equal(delivered.sendStatus.status, 'SUCCESS');
assert.notEqual(delivered.id, sent.pendingMessageID, 'a delivered message has its final ID');
assert.deepEqual(delivered.sendStatus.deliveredToUsers, ['@ana:beeper.local']);
assert.equal((await client.messages.retrieve(delivered.id, { chatID: ANA })).id, delivered.id, 'retrieve by final ID');

// a send Beeper gives up on
const doomed = await client.messages.send(ANA, { text: 'This one will not go' });
await control('/_fake/send-status', { chatId: ANA, messageId: doomed.pendingMessageID, status: 'FAIL_PERMANENT', message: 'Blocked by the recipient' });
const failed = await client.messages.retrieve(doomed.pendingMessageID, { chatID: ANA });
checkMessage(failed, 'messages.retrieve (failed)');
assert.deepEqual([failed.sendStatus.status, failed.sendStatus.message], ['FAIL_PERMANENT', 'Blocked by the recipient']);

// an unheld send succeeds at once
await control('/_fake/hold-sends', { hold: false });
const quick = await client.messages.send(ANA, { text: 'And snacks' });
const quickMsg = await client.messages.retrieve(quick.pendingMessageID, { chatID: ANA });
checkMessage(quickMsg, 'messages.retrieve (unheld)');
assert.equal(quickMsg.sendStatus.status, 'SUCCESS');
await rejects(client.messages.retrieve('no-such-message', { chatID: ANA }), NotFoundError, 404, 'messages.retrieve of an unknown message');

// the list now shows the sends with their status objects
const after = await allPages(client.messages.list(ANA), 'messages.list after sends', checkMessage);
const mine = after.items.filter((m) => m.isSender);
assert.deepEqual(mine.map((m) => m.sendStatus?.status).sort(), ['FAIL_PERMANENT', 'SUCCESS', 'SUCCESS']);

// mark read: through a message, then the whole chat
const readThrough = await client.chats.markRead(ANA, { messageID: 'm-ana-2' });
checkChat(readThrough, 'chats.markRead');
assert.equal(readThrough.unreadCount, 1, 'm-ana-3 is still unread');
const readAll = await client.chats.markRead(ANA);
checkChat(readAll, 'chats.markRead (all)');
assert.equal(readAll.unreadCount, 0);
assert.deepEqual(await search({ unreadOnly: true }), []);

// archive and back
assert.equal(await client.chats.archive(TOMAS), null, 'archive answers no content');
assert.deepEqual(await search({ inbox: 'archive' }), [TOMAS]);
assert.equal((await client.chats.retrieve(TOMAS)).isArchived, true);
await client.chats.archive(TOMAS, { archived: false });
assert.deepEqual(await search({ inbox: 'archive' }), []);

// focus: Beeper opens on a chat with a draft in its field; nothing is sent
const focused = await client.focus({ chatID: ANA, messageID: 'm-ana-3', draftText: 'Finish this on the desktop' });
obj(focused, 'focus');
bool(focused.success, 'focus.success');
assert.equal(focused.success, true);
await rejects(client.focus({ chatID: '!nobody:beeper.local', draftText: 'x' }), NotFoundError, 404, 'focus on an unknown chat');

// messages search, every page
const found = await allPages(client.messages.search({ query: 'saturday', limit: 1 }), 'messages.search', checkMessage);
assert.equal(found.pages, 3, 'messages.search with limit 1 pages once per hit');
assert.deepEqual(ids(found.items), [delivered.id, 'm-ana-2', 'm-ana-1'], 'messages.search newest first');
const fromMe = await allPages(client.messages.search({ sender: 'me', chatIDs: [TOMAS, CREW] }), 'messages.search sender', checkMessage);
assert.deepEqual(ids(fromMe.items), ['m-tomas-2', 'm-crew-3']);

// 401: a wrong token is an AuthenticationError with Beeper's error body
await rejects(new BeeperDesktop({ accessToken: 'not-the-token', maxRetries: 0 }).accounts.list(), AuthenticationError, 401, 'a wrong token');
await rejects(new BeeperDesktop({ accessToken: 'not-the-token', maxRetries: 0 }).chats.list(), AuthenticationError, 401, 'a wrong token (list)');

out.pendingMessageID = sent.pendingMessageID;
out.finalMessageID = delivered.id;
out.failedMessageID = doomed.pendingMessageID;
out.quickMessageID = quickMsg.id;
console.log(JSON.stringify(out));
