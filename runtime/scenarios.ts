/** The mock scenario table from spec/openapi.yaml, shared by the mock, docs, MSW handlers and tests so none drift. Node-only. */
import { contract, type OpenApiDocument } from './contract.js';
import { RESUME_PATH } from './resume-path.js';
import { resolveRef } from './resolve-ref.js';

/** One scenario a frontend must handle: what to send to the mock and what it answers. */
export interface Scenario {
  example: string;
  summary: string;
  status: number;
  /** Value of the `Prefer` header that selects this answer on Prism. */
  prefer: string;
  /** Headers the spec requires on this answer, with their first example value. */
  headers: Record<string, string>;
  body: unknown;
}

type Named = Record<string, unknown>;

function firstExampleValue(doc: OpenApiDocument, header: Named): unknown {
  if ('example' in header) return header.example;
  const examples = Object.values((header.examples ?? {}) as Named);
  const first = resolveRef(doc, examples[0]) as Named | undefined;
  return first?.value;
}

/** Every scenario of the resume operation in document order. */
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
