/** Type of one mock scenario of the resume operation, as embedded in scenarios.generated.ts. Browser-safe. */
import type { ErrorBody, ResumeResult } from '@session-resume-api/runtime/types';

/** A named response example: the Prefer value that selects it, its status, required headers and body. */
export interface ResumeScenario {
  /** Example name in the spec, e.g. `notPaused`. */
  example: string;
  /** The example's summary. */
  summary: string;
  /** HTTP status. */
  status: number;
  /** Same `Prefer` value as on the Prism mock, e.g. `code=409, example=notPaused`. */
  prefer: string;
  /** Required response headers with their example values. */
  headers: Readonly<Record<string, string>>;
  /** Example body. */
  body: ResumeResult | ErrorBody;
}
