// Drives every message shape SDK 5 declares through hearth's fake Beeper
// (beeper/beepertest) and the official TypeScript SDK, @beeper/desktop-api
// 5.0.0: a reaction, a notice, a hidden and a deleted message, an edit, and
// media (a photo with and without a caption, a voice message, a video, a
// file, a sticker, a location). The fake's control routes add them; the SDK
// lists and retrieves them, and each is checked against the declared types
// (resources/shared.d.ts Message and Attachment). e2e/beeper_sdk_kinds_test.go
// runs it with HEARTH_BEEPER_SDK_DIR, BEEPER_BASE_URL and BEEPER_ACCESS_TOKEN,
// and reads the one JSON line it prints (each shape's message ID).
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
const ANA_USER = '@ana:beeper.local';
const SELF = '@owner:beeper.local';

function str(v, what) {
  assert.equal(typeof v, 'string', `${what} must be a string, got ${JSON.stringify(v)}`);
}
const optStr = (v, what) => v === undefined || str(v, what);
const optBool = (v, what) => v === undefined || assert.equal(typeof v, 'boolean', `${what} must be a boolean`);
const optNum = (v, what) => v === undefined || assert.equal(typeof v, 'number', `${what} must be a number`);
const iso = (v, what) => {
  str(v, what);
  assert.match(v, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/, `${what} must be ISO 8601`);
};

// shared.d.ts Attachment
function checkAttachment(a, w) {
  assert.ok(['unknown', 'img', 'video', 'audio'].includes(a.type), `${w}.type is ${JSON.stringify(a.type)}`);
  for (const k of ['id', 'fileName', 'mimeType', 'posterImg', 'srcURL']) optStr(a[k], `${w}.${k}`);
  for (const k of ['duration', 'fileSize']) optNum(a[k], `${w}.${k}`);
  for (const k of ['isGif', 'isSticker', 'isVoiceNote']) optBool(a[k], `${w}.${k}`);
}

// shared.d.ts Reaction
function checkReaction(r, w) {
  for (const k of ['id', 'participantID', 'reactionKey']) str(r[k], `${w}.${k}`);
  optBool(r.emoji, `${w}.emoji`);
  optStr(r.imgURL, `${w}.imgURL`);
}

// shared.d.ts Message, the fields a message's kind is read from
function checkMessage(m, w) {
  for (const k of ['id', 'accountID', 'chatID', 'senderID', 'sortKey']) str(m[k], `${w}.${k}`);
  iso(m.timestamp, `${w}.timestamp`);
  if (m.editedTimestamp !== undefined) iso(m.editedTimestamp, `${w}.editedTimestamp`);
  for (const k of ['isDeleted', 'isHidden', 'isSender', 'isUnread']) optBool(m[k], `${w}.${k}`);
  for (const k of ['linkedMessageID', 'senderName', 'text']) optStr(m[k], `${w}.${k}`);
  assert.ok(['TEXT', 'NOTICE', 'IMAGE', 'VIDEO', 'VOICE', 'AUDIO', 'FILE', 'STICKER', 'LOCATION', 'REACTION'].includes(m.type), `${w}.type is ${JSON.stringify(m.type)}`);
  if (m.attachments !== undefined) {
    assert.ok(Array.isArray(m.attachments), `${w}.attachments must be an array`);
    m.attachments.forEach((a, i) => checkAttachment(a, `${w}.attachments[${i}]`));
  }
  if (m.reactions !== undefined) {
    assert.ok(Array.isArray(m.reactions), `${w}.reactions must be an array`);
    m.reactions.forEach((r, i) => checkReaction(r, `${w}.reactions[${i}]`));
  }
}

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
const add = async (msg) => (await control('/_fake/message', { chatId: ANA, msg: { senderID: ANA_USER, ...msg } })).id;

const ids = {};
ids.mine = await add({ senderID: SELF, text: 'Saturday at 8 works!' });
ids.reaction = await add({ type: 'REACTION', text: '👍', linkedMessageID: ids.mine });
ids.notice = await add({ type: 'NOTICE', text: "Ana Okafor's security code changed." });
ids.hidden = await add({ text: 'an edit event', isHidden: true });
ids.deleted = await add({ text: 'typo' });
await control('/_fake/edit', { chatId: ANA, messageId: ids.deleted, deleted: true });
ids.edited = await add({ text: 'Meet at 7?' });
await control('/_fake/edit', { chatId: ANA, messageId: ids.edited, text: 'Meet at 8?' });
ids.photo = await add({
  type: 'IMAGE',
  attachments: [{ type: 'img', fileName: 'IMG_0412.jpg', mimeType: 'image/jpeg', fileSize: 204800 }],
  reactions: [{ id: SELF, participantID: SELF, reactionKey: '😍', emoji: true }],
});
ids.captioned = await add({ type: 'IMAGE', text: 'The view from the top!', attachments: [{ type: 'img' }] });
ids.voice = await add({ type: 'VOICE', attachments: [{ type: 'audio', duration: 42, isVoiceNote: true, mimeType: 'audio/ogg' }] });
ids.video = await add({ type: 'VIDEO', attachments: [{ type: 'video', duration: 12.5 }] });
ids.file = await add({ type: 'FILE', attachments: [{ type: 'unknown', fileName: 'trail-map.pdf' }] });
ids.sticker = await add({ type: 'STICKER', attachments: [{ type: 'img', isSticker: true }] });
ids.location = await add({ type: 'LOCATION', text: 'geo:54.18,-4.54' });

// Every page the SDK lists, each message as declared.
const listed = [];
for await (const m of client.messages.list(ANA)) {
  checkMessage(m, `messages.list ${m.id}`);
  listed.push(m);
}
const byID = Object.fromEntries(listed.map((m) => [m.id, m]));
for (const [name, id] of Object.entries(ids)) assert.ok(byID[id], `messages.list lacks the ${name} ${id}`);

const got = (name) => byID[ids[name]];
assert.equal(got('reaction').type, 'REACTION');
assert.equal(got('reaction').linkedMessageID, ids.mine, 'a reaction points at the message it answers');
assert.equal(got('notice').type, 'NOTICE');
assert.equal(got('hidden').isHidden, true);
assert.equal(got('deleted').isDeleted, true);
assert.equal(got('edited').text, 'Meet at 8?');
assert.ok(Date.parse(got('edited').editedTimestamp) >= Date.parse(got('edited').timestamp), 'an edit is no older than its message');
assert.equal(got('photo').attachments[0].fileName, 'IMG_0412.jpg');
assert.deepEqual(got('photo').reactions.map((r) => r.reactionKey), ['😍'], 'a reaction listed on the message it answers');
assert.equal(got('voice').attachments[0].duration, 42);
assert.equal(got('voice').attachments[0].isVoiceNote, true);
assert.equal(got('mine').isSender, true);

// One message by ID reads the same as the list.
const edited = await client.messages.retrieve(ids.edited, { chatID: ANA });
checkMessage(edited, 'messages.retrieve (edited)');
assert.equal(edited.editedTimestamp, got('edited').editedTimestamp);

console.log(JSON.stringify(ids));
