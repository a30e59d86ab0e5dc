/**
 * Generated reference tables of the docs: `npm run docs` rewrites them from the sources, and a test
 * fails when the committed files differ, so the docs cannot drift from the code.
 */
import { writeFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Errors } from '../src/core/errors.js';
import { FILE_TYPES, UNKNOWN_FILE_TYPE } from '../src/core/file-types.js';
import { TRANSPORT_ERROR_STATUSES } from '../src/http/plugins/error-answer.js';

export function errorsMarkdown(): string {
  const transportStatuses = [...TRANSPORT_ERROR_STATUSES].map((status) => `${status} (${STATUS_CODES[status] ?? 'Error'})`).join(', ');
  const rows = Object.entries(Errors)
    .sort(([, a], [, b]) => b.errorCode - a.errorCode)
    .map(([name, e]) => `| ${e.errorCode} | ${e.status} | \`${name}\` | ${e.description} |`);
  return `# Errors

Every failed call answers with an HTTP status of 4xx or 5xx and the webPDF exception structure, with
\`Content-Type: application/json\` exactly (no charset parameter: the official clients compare the whole
header); the one exception is the transport errors below:

\`\`\`json
{ "errorCode": -14, "errorMessage": "Invalid parameter body.createRefreshToken: must be boolean", "stackTrace": "" }
\`\`\`

- \`errorCode\` is never 0 in an error response (0 means "no error", as in \`DocumentFile.error\`).
- \`errorMessage\` says what was wrong and, for parameters, names the field and the allowed values.
- \`stackTrace\` is empty unless the server runs with \`server.debug: true\`; causes of 5xx errors are in the log.
- Bad input never produces a 5xx.

**Transport errors.** The official clients raise their webPDF exception only for \`Content-Type:
application/json\` exactly with an \`errorCode\` other than 0; any other answer is a plain HTTP error to
them (their -34 \`HTTP_CUSTOM_ERROR\` carrying the status). The statuses their own tests expect as such
HTTP errors, the ones webPDF's HTTP container answers before a web service sees the call, are answered
as RFC 9457 problem details (\`Content-Type: application/problem+json\`) that carry the exception members
as well, so that a person or a lenient client still reads the reason: ${transportStatuses}. Every other
status is the exception structure above.

\`\`\`json
{ "type": "about:blank", "title": "Unsupported Media Type", "status": 415, "detail": "This endpoint does not accept a body of this content type.",
  "errorCode": -81, "errorMessage": "This endpoint does not accept a body of this content type.", "stackTrace": "" }
\`\`\`

A route that takes no body (closing a session, deleting a document or a job, the replay queue's calls)
ignores the \`Content-Type\` of an empty body (\`Content-Length: 0\`, or neither Content-Length nor
Transfer-Encoding): HTTP clients label bodiless calls with a type of their choosing (axios sends
\`application/x-www-form-urlencoded\`). A route that takes a body judges the type even of an empty one.

Codes known from the webPDF clients keep their numbers (-14, -60, -5008, -5009, -5055); the others are
Quire's own. The table is generated from \`src/core/errors.ts\` (\`npm run docs\`).

| errorCode | HTTP status | name | meaning |
|---|---|---|---|
${rows.join('\n')}
`;
}

export function fileTypesMarkdown(): string {
  const rows = [UNKNOWN_FILE_TYPE, ...FILE_TYPES].map(
    (t) => `| ${t.id} | ${t.key} | ${[t.extension, ...t.aliases].filter(Boolean).join(', ') || '—'} | \`${t.mimeType}\` | ${t.groups.join(', ') || '—'} |`,
  );
  return `# File types

Quire detects the type of every stored document from its content (magic bytes, the directory of
OLE/CFB containers, the parts of ZIP packages, a bounded sniff of text), never from the name the client
gave. The client's name only chooses between text formats that content cannot tell apart (txt, csv, md,
json, ...) and keeps its spelling of the extension when it names the detected type (\`jpeg\` vs \`jpg\`).

\`fileTypeId\` is a stable contract: an id is never renumbered, reused or removed. \`fileTypeGroups\` is
sent as a comma-separated list. The table is generated from \`src/core/file-types.ts\` (\`npm run docs\`).

| fileTypeId | key | extensions | mimeType | fileTypeGroups |
|---|---|---|---|---|
${rows.join('\n')}
`;
}

export const GENERATED: Record<string, () => string> = {
  'docs/errors.md': errorsMarkdown,
  'docs/file-types.md': fileTypesMarkdown,
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [file, render] of Object.entries(GENERATED)) writeFileSync(new URL(`../${file}`, import.meta.url), render());
}
