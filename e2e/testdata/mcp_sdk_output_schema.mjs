// Holds `hearth mcp`'s declared output schemas to the official TypeScript
// MCP SDK (@modelcontextprotocol/sdk 1.32.2), whose Client.callTool checks
// a tool's structuredContent against the outputSchema listTools gave it and
// throws when it does not match. e2e/mcp_output_schema_test.go runs it with:
//   HEARTH_MCP_SDK_DIR      where the SDK is installed (node_modules inside)
//   HEARTH_BIN, HEARTH_URL  the hearth binary and the running server
//   HEARTH_CREDENTIAL       the --credential-file argument
//   HEARTH_PUBLICATION      a file holding a valid publication
// It prints one JSON line, the summary the Go test asserts.
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
const { Server } = await sdk('server/index.js');
const { InMemoryTransport } = await sdk('inMemory.js');
const { ListToolsRequestSchema, CallToolRequestSchema } = await sdk('types.js');
const { AjvJsonSchemaValidator } = await sdk('validation/ajv-provider.js');

const client = new Client({ name: 'hearth-e2e-output', version: '1' });
await client.connect(new StdioClientTransport({
  command: process.env.HEARTH_BIN,
  args: ['mcp', '--url', process.env.HEARTH_URL, '--credential-file', process.env.HEARTH_CREDENTIAL],
  stderr: 'inherit',
}));
const summary = { sdkVersion: version, tools: {}, calls: [], rejects: {}, fakeServer: {} };

// listTools also hands the client each tool's outputSchema to check with.
const { tools } = await client.listTools();
for (const t of tools) {
  summary.tools[t.name] = { outputSchemaType: t.outputSchema?.type ?? null };
}
const collections = tools.find((t) => t.name === 'get_context').inputSchema.properties.collection.enum;

// One structuredContent per tool, kept to build mismatches from.
const structured = {};
async function call(name, args, label) {
  const entry = { tool: name, label };
  try {
    const res = await client.callTool({ name, arguments: args });
    entry.isError = res.isError === true;
    entry.structured = res.structuredContent != null;
    if (entry.isError) entry.text = res.content?.[0]?.text?.slice(0, 500);
    else {
      structured[name] ??= res.structuredContent;
      entry.items = res.structuredContent.items?.length ?? -1;
    }
  } catch (e) {
    // callTool throws when structuredContent does not match outputSchema.
    entry.thrown = String(e.message ?? e).slice(0, 2000);
  }
  summary.calls.push(entry);
}

const publication = JSON.parse(readFileSync(process.env.HEARTH_PUBLICATION, 'utf8'));
// First, so the observations collection has one to page.
await call('post_observations', {
  observations: [{ source: 'mail:work', ref: 'out-1', changeType: 'created', actor: 'agent',
    payload: { kind: 'mail', providerId: 'work', raw: { subject: 'hi' } } }],
}, 'observations');
await call('get_context', {}, 'compact');
await call('get_context', { full: true }, 'full');
for (const c of collections) await call('get_context', { collection: c }, 'collection ' + c);
await call('list_requests', {}, 'requests');
await call('publish_result', { result: publication, dryRun: true }, 'dry run');
await call('publish_result', { result: publication }, 'publish');
// Tool errors carry hearth's envelope as structured content too, and
// callTool checks it as well: an argument error and a refusal by hearth.
await call('publish_result', { result: publication, dryrun: true }, 'error: a misspelt argument');
await call('publish_result', { result: { ...publication, runId: 'ts-out-bad', jobKey: 5 }, dryRun: true }, 'error: hearth refuses');

// Mismatches the SDK's validator (the one callTool uses) must refuse: the
// first property given the wrong type, and a property no answer has.
const validator = new AjvJsonSchemaValidator();
function wrongType(sc) {
  const [k, v] = Object.entries(sc)[0];
  return { ...sc, [k]: typeof v === 'number' ? 'not a number' : 7 };
}
for (const t of tools) {
  const sc = structured[t.name];
  if (!t.outputSchema || !sc) continue;
  const validate = validator.getValidator(t.outputSchema);
  summary.rejects[t.name] = {
    acceptsReal: validate(sc).valid,
    rejectsWrongType: !validate(wrongType(sc)).valid,
    rejectsUnknownProperty: !validate({ ...sc, notHearths: 1 }).valid,
  };
}

// The same through callTool itself: a server declaring hearth's tools as
// listed answers get_context once with hearth's real answer and once with
// a mismatch; the client must accept the first and throw on the second.
const fake = new Server({ name: 'fake', version: '1' }, { capabilities: { tools: {} } });
let answer = structured.get_context;
fake.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
fake.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer }));
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await fake.connect(serverSide);
const probe = new Client({ name: 'probe', version: '1' });
await probe.connect(clientSide);
await probe.listTools();
try {
  await probe.callTool({ name: 'get_context', arguments: {} });
  summary.fakeServer.realAccepted = true;
} catch (e) {
  summary.fakeServer.realAccepted = false;
  summary.fakeServer.realError = String(e.message ?? e).slice(0, 500);
}
answer = wrongType(structured.get_context);
try {
  await probe.callTool({ name: 'get_context', arguments: {} });
  summary.fakeServer.mismatchThrown = '';
} catch (e) {
  summary.fakeServer.mismatchThrown = String(e.message ?? e).slice(0, 500);
}
await probe.close();
await client.close();
console.log(JSON.stringify(summary));
