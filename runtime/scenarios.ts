/**
 * The mock scenario table, derived from spec/openapi.yaml: one row per named response
 * example of `resumeSession`, selectable on the Prism mock with `Prefer: code=<status>,
 * example=<name>`. Used by the mock launcher's printout, the mock section of docs/mock-sandbox-msw.md, the MSW handlers'
 * generated module and the tests, so none of them can drift from the document. Node-only
 * (reads the contract).
 */
import { contract, type OpenApiDocument } from './contract.js';
import { RESUME_PATH } from './resume-path.js';
import { resolveRef } from './resolve-ref.js';

/** One scenario a frontend must handle: what to send to the mock and what it answers. */
export interface Scenario {
  /** Name of the response example in the spec, e.g. `notPaused`. */
  example: string;
  /** The example's `summary`, e.g. "Session is not paused". */
  summary: string;
  /** HTTP status of the answer. */
  status: number;
  /** Value of the `Prefer` header that selects this answer on Prism. */
  prefer: string;
  /** Response headers the spec declares for this answer, with their first example value. */
  headers: Record<string, string>;
  /** The example body, as the mock sends it. */
  body: unknown;
}


type Named = Record<string, unknown>;

function firstExampleValue(doc: OpenApiDocument, header: Named): unknown {
  if ('example' in header) return header.example;
  const examples = Object.values((header.examples ?? {}) as Named);
  const first = resolveRef(doc, examples[0]) as Named | undefined;
  return first?.value;
}

/**
 * Lists every scenario of the resume operation in document order (status, then example).
 * Only headers marked `required` are listed: those are the ones every answer carries.
 */
export function listScenarios(doc: OpenApiDocument = contract.document): Scenario[] {
  const operation = doc.paths[RESUME_PATH]?.post as Named | undefined;
  if (!operation) throw new Error(`spec has no POST ${RESUME_PATH}`);
  const scenarios: Scenario[] = [];
  for (const [code, raw] of Object.entries(operation.responses as Named)) {
    const response = resolveRef(doc, raw) as Named;
    const status = Number(code);
    const headers: Record<string, string> = {};
    for (const [name, rawHeader] of Object.entries((response.headers ?? {}) as Named)) {
      const header = resolveRef(doc, rawHeader) as Named;
      if (header.required === true) headers[name] = String(firstExampleValue(doc, header));
    }
    const media = ((response.content ?? {}) as Named)['application/json'] as Named | undefined;
    for (const [example, rawExample] of Object.entries((media?.examples ?? {}) as Named)) {
      const ex = resolveRef(doc, rawExample) as Named;
      scenarios.push({
        example,
        summary: String(ex.summary ?? example),
        status,
        // Prism searches `example=` only in the 200 response unless `code=` is given too.
        prefer: `code=${status}, example=${example}`,
        headers,
        body: ex.value,
      });
    }
  }
  return scenarios;
}
