// Drives the chat composer draft (PATCH /v1/chats/{chatID}, Desktop API
// v4.2.808) through hearth's fake Beeper with the official TypeScript SDK,
// @beeper/desktop-api 5.0.0: chats.update sets a draft only while the
// composer is empty, refuses a second one, and draft=null clears it.
// e2e/beeper_sdk_composer_test.go runs it with HEARTH_BEEPER_SDK_DIR,
// BEEPER_BASE_URL and BEEPER_ACCESS_TOKEN and reads the JSON line it prints.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.HEARTH_BEEPER_SDK_DIR, 'package.json'));
const { VERSION } = require('@beeper/desktop-api/version');
assert.equal(VERSION, '5.0.0', 'the pinned SDK version');
const { default: BeeperDesktop } = require('@beeper/desktop-api');

// No retries: a refused set must be seen once, as Beeper answered it.
const client = new BeeperDesktop({ maxRetries: 0, timeout: 15_000 });
const ANA = '!ana-okafor:beeper.local';

const before = await client.chats.retrieve(ANA);
assert.ok(before.draft === undefined || before.draft === null, `the composer starts empty, got ${JSON.stringify(before.draft)}`);

const set = await client.chats.update(ANA, { draft: { text: 'From the SDK' } });
assert.equal(set.draft?.text, 'From the SDK', 'the answer is the chat with its new draft');
assert.equal((await client.chats.retrieve(ANA)).draft?.text, 'From the SDK', 'the chat keeps the draft');

let refused;
try {
  await client.chats.update(ANA, { draft: { text: 'Over the top' } });
} catch (err) {
  refused = err;
}
assert.ok(refused instanceof BeeperDesktop.APIError, `a second draft over a busy composer is refused, got ${refused}`);
assert.ok(refused.status >= 400 && refused.status < 500, `refused as the caller's mistake, got ${refused.status}`);
assert.equal((await client.chats.retrieve(ANA)).draft?.text, 'From the SDK', 'a refused set leaves the draft alone');

const cleared = await client.chats.update(ANA, { draft: null });
assert.ok(cleared.draft === undefined || cleared.draft === null, `draft=null clears it, got ${JSON.stringify(cleared.draft)}`);
const again = await client.chats.update(ANA, { draft: { text: 'Once more' } });
assert.equal(again.draft?.text, 'Once more', 'an emptied composer takes a draft again');

console.log(JSON.stringify({ refusedStatus: refused.status, draft: again.draft.text }));
