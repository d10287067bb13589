/**
 * Renders the mock scenario table (runtime/scenarios.ts) as Markdown for the mock section of
 * docs/mock-sandbox-msw.md and
 * as plain text for the mock launcher's console output.
 */
import type { Scenario } from '@session-resume-api/runtime/scenarios';

/** The sample bearer key printed and documented for the mock; Prism accepts any token. */
export const MOCK_SAMPLE_KEY = 'mock-key';

const escapeCell = (text: string): string => text.replace(/\|/g, '\\|');

function answer(s: Scenario): string {
  const headers = Object.entries(s.headers).map(([k, v]) => `${k}: ${v}`);
  return [String(s.status), ...headers, JSON.stringify(s.body)].join(' ');
}

/** Markdown table: scenario → header to send → answer (status, required headers, body). */
export function renderScenarioMarkdown(scenarios: readonly Scenario[]): string {
  const rows = scenarios.map(
    (s) =>
      `| ${escapeCell(s.summary)} (\`${s.example}\`) | \`Prefer: ${s.prefer}\` | ${s.status} ${Object.entries(s.headers)
        .map(([k, v]) => `\`${escapeCell(`${k}: ${v}`)}\` `)
        .join('')}\`${escapeCell(JSON.stringify(s.body))}\` |`,
  );
  return ['| Scenario | Header to send | Answer |', '|---|---|---|', ...rows].join('\n') + '\n';
}

/** Plain-text lines for a terminal: one scenario per line. */
export function renderScenarioText(scenarios: readonly Scenario[]): string {
  const width = Math.max(...scenarios.map((s) => s.prefer.length)) + 'Prefer: '.length;
  return scenarios.map((s) => `  ${`Prefer: ${s.prefer}`.padEnd(width)}  → ${s.summary}\n  ${' '.repeat(width)}    ${answer(s)}`).join('\n');
}

/** The whole mock section of docs/mock-sandbox-msw.md, rendered from the scenario list. */
export function renderMockReadme(scenarios: readonly Scenario[]): string {
  return `## The mock (Prism)

\`npm run mock\` starts [Prism](https://github.com/stoplightio/prism) 5.14.2 on
\`http://127.0.0.1:4010\` (set \`PORT\` to change it) serving \`spec/openapi.yaml\`, and prints
this table. On a port already taken it prints one line, \`127.0.0.1:4010 is already in use: set
PORT to a free port (PORT=4011 npm run mock).\`, and exits with status 1. It answers with the spec's named examples; CORS is on, so a page on any origin
can call it with an \`Authorization\` header.

\`\`\`sh
npm run mock
curl -X POST http://127.0.0.1:4010/v1/sessions/sess_paused_1/resume \\
  -H 'Authorization: Bearer ${MOCK_SAMPLE_KEY}' -H 'Prefer: code=409, example=notPaused'
\`\`\`

Any non-empty bearer token is accepted (\`Bearer ${MOCK_SAMPLE_KEY}\`). Without an
\`Authorization\` header the mock answers 401 \`missingToken\`. Without \`Prefer\` it
answers 200 \`resumed\`. Select every other scenario with \`Prefer\`:

${renderScenarioMarkdown(scenarios)}
Mock limits (Prism 5.14.2):

- it is stateless: a second resume still answers 200 unless \`Prefer\` says otherwise (use
  the [sandbox](#the-sandbox) when state matters);
- it matches the \`Bearer\` scheme case-sensitively, so \`bearer ${MOCK_SAMPLE_KEY}\` gets 401
  (the spec and the reference server accept any case);
- its \`WWW-Authenticate\` is always the first header example, without \`error="invalid_token"\`;
- a body that is not JSON gets Prism's own 400 \`{"error":{"code":"invalid_json","message":"Invalid JSON"}}\`,
  not the spec's Error body (\`invalidJson\` above needs \`Prefer\`);
- \`Prefer: example=…\` without \`code=\` looks only at the 200 answer, so any other example
  name gets Prism's 404 problem+json: always send \`code=\` with \`example=\`, as in the table;
- an example name the document does not have (with \`code=\`) gets Prism's 500 problem+json.

## Unit tests without a server (MSW)

\`client/msw/handlers.ts\` exports \`createResumeHandlers({ baseUrl, scenario? })\`: typed
[MSW](https://mswjs.io) 2 handlers (via openapi-msw) that answer the same examples, selected by
the same \`Prefer\` header, or by \`scenario\` (an example name) for every request of a test.
Without a bearer token they answer 401 \`missingToken\`. Browser-safe: the examples are
embedded in \`client/msw/scenarios.generated.ts\`.

Your project needs \`session-resume-api\` ([install](client.md#install)) and two packages from
the registry that npm does not add by itself (optional peer dependencies of
\`session-resume-api\`): MSW 2 and openapi-msw 2.

\`\`\`sh install
npm install --save-dev msw@2 openapi-msw@2
\`\`\`

\`\`\`ts
import { setupServer } from 'msw/node'; // or setupWorker from 'msw/browser'
import { createResumeHandlers } from 'session-resume-api/msw';

const server = setupServer(...createResumeHandlers({ baseUrl: 'https://api.test' }));
server.listen();
server.use(...createResumeHandlers({ baseUrl: 'https://api.test', scenario: 'notPaused' })); // every resume now answers 409
\`\`\`

For state without a server, \`createStatefulResumeHandlers({ baseUrl, sessions? })\` (same
entry) follows the sandbox's state model: a resume flips an in-memory session (then
\`notPaused\`, unknown ids \`notFound\`), \`Prefer\` still forces an example without changing
state, \`events()\` lists the emitted webhook payloads, and \`/_sandbox/*\` is served too, so
\`createSandboxClient\` set-up code runs unchanged. Call \`reset()\` in \`afterEach\`.

\`\`\`ts
import { setupServer } from 'msw/node';
import { createStatefulResumeHandlers } from 'session-resume-api/msw';

const api = createStatefulResumeHandlers({ baseUrl: 'https://api.test' });
const server = setupServer(...api.handlers);
server.listen();
afterEach(() => api.reset()); // your test runner's afterEach
\`\`\`

These two sections are generated from the spec: \`npm run mock:generate\` rewrites them in
\`docs/mock-sandbox-msw.md\` (and the MSW handlers' examples), and a test fails when they are out of date.
Another test installs what this section names into a fresh project and runs both snippets there.
`;
}

/** Markers around the generated mock section in docs/mock-sandbox-msw.md. */
export const MOCK_SECTION_MARKERS = { start: '<!-- mock-section:start (npm run mock:generate) -->', end: '<!-- mock-section:end -->' } as const;

/** The text between the mock section markers of `readme`; throws when they are missing. */
export function readMockSection(readme: string): string {
  const start = readme.indexOf(MOCK_SECTION_MARKERS.start);
  const end = readme.indexOf(MOCK_SECTION_MARKERS.end);
  if (start < 0 || end < start) throw new Error(`docs/mock-sandbox-msw.md lacks the markers ${MOCK_SECTION_MARKERS.start} … ${MOCK_SECTION_MARKERS.end}`);
  return readme.slice(start + MOCK_SECTION_MARKERS.start.length + 1, end);
}

/** `readme` with the text between the mock section markers replaced by `section`. */
export function writeMockSection(readme: string, section: string): string {
  const current = readMockSection(readme);
  const at = readme.indexOf(MOCK_SECTION_MARKERS.start) + MOCK_SECTION_MARKERS.start.length + 1;
  return readme.slice(0, at) + section + readme.slice(at + current.length);
}
