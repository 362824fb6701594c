// Drives the real `hearth mcp` over stdio with the official TypeScript MCP
// SDK client, @modelcontextprotocol/sdk 1.32.2, the way an MCP host does:
// no shell, so the credential path arrives with its ~ unexpanded.
// e2e/mcp_sdk_test.go installs the SDK and runs this with:
//   HEARTH_MCP_SDK_DIR      where the SDK is installed (node_modules inside)
//   HEARTH_BIN, HEARTH_URL  the hearth binary and the running server
//   HEARTH_CREDENTIAL       the --credential-file argument, as written (~/…)
//   HEARTH_PUBLICATION      a file holding a valid publication
// It prints one JSON line, the summary the Go test asserts, and exits
// non-zero only when the SDK itself fails (a protocol error, not a tool error).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const sdkDir = process.env.HEARTH_MCP_SDK_DIR;
const pkgDir = path.join(sdkDir, 'node_modules', '@modelcontextprotocol', 'sdk');
const sdk = (p) => import(pathToFileURL(path.join(pkgDir, 'dist', 'esm', p)).href);
const { version } = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
assert.equal(version, '1.32.2', 'the pinned SDK version');
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { AjvJsonSchemaValidator } = await sdk('validation/ajv-provider.js');

const transport = new StdioClientTransport({
  command: process.env.HEARTH_BIN,
  args: ['mcp', '--url', process.env.HEARTH_URL, '--credential-file', process.env.HEARTH_CREDENTIAL],
  stderr: 'inherit',
});
const client = new Client({ name: 'hearth-e2e-ts', version: '1' });
await client.connect(transport);

const summary = { sdkVersion: version, server: client.getServerVersion(), tools: {} };

const { tools } = await client.listTools();
for (const t of tools) {
  summary.tools[t.name] = { title: t.title ?? '', annotations: t.annotations ?? null };
}
const publish = tools.find((t) => t.name === 'publish_result');
const result = publish.inputSchema.properties.result;
summary.publishInput = {
  required: publish.inputSchema.required,
  resultType: result.type,
  resultRequired: result.required,
  resultProperties: Object.keys(result.properties ?? {}).length,
  defs: Object.keys(publish.inputSchema.$defs ?? {}).length,
};

const { resources } = await client.listResources();
summary.resources = resources.map((r) => ({ uri: r.uri, mimeType: r.mimeType }));
const read = await client.readResource({ uri: 'hearth://schema/agent-result.json' });
const schemaDoc = JSON.parse(read.contents[0].text);
summary.schemaResource = { mimeType: read.contents[0].mimeType, id: schemaDoc.$id, required: schemaDoc.required };

// A tool result: its text, whether it is a tool error, and its structured content.
async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  return { isError: res.isError === true, text: res.content[0].text, structured: res.structuredContent ?? null };
}
function contextShape(r) {
  const ctx = r.isError ? {} : JSON.parse(r.text);
  return { isError: r.isError, revision: ctx.revision, observations: ctx.observations?.items?.length, truncated: ctx.observations?.truncated };
}

summary.compact = contextShape(await call('get_context', {}));
summary.compactFalse = contextShape(await call('get_context', { compact: false }));
summary.full = contextShape(await call('get_context', { full: true }));

const publication = JSON.parse(readFileSync(process.env.HEARTH_PUBLICATION, 'utf8'));
// The SDK's own validator (Ajv) accepts the publication against the declared
// input schema and refuses the call without it: the schema is usable as is.
const validate = new AjvJsonSchemaValidator().getValidator(publish.inputSchema);
summary.ajv = {
  accepts: validate({ result: publication, dryRun: true }).valid,
  refusesMissingResult: !validate({ dryRun: true }).valid,
  refusesWrongJobKey: !validate({ result: { ...publication, jobKey: 5 } }).valid,
};

let r = await call('publish_result', { result: publication, dryRun: true });
summary.dryRun = { isError: r.isError, body: r.isError ? r.text : JSON.parse(r.text) };
r = await call('publish_result', { result: publication });
summary.publish = { isError: r.isError, body: r.isError ? r.text : JSON.parse(r.text) };
r = await call('publish_result', { result: publication });
summary.replay = { isError: r.isError, body: r.isError ? r.text : JSON.parse(r.text) };

summary.typo = await call('publish_result', { result: publication, dryrun: true });
summary.missingResult = await call('publish_result', { dryRun: true });
summary.wrongType = await call('get_context', { compact: 'no' });
summary.contradiction = await call('get_context', { compact: true, full: true });
summary.invalidResult = await call('publish_result', { result: { ...publication, runId: 'ts-invalid', jobKey: 5 }, dryRun: true });

await client.close();
console.log(JSON.stringify(summary));
