/**
 * A graded session as the service keeps it: paused until one resume applies, with the answer
 * recorded under the Idempotency-Key that applied it, so a retry with that key gets it again.
 */
import { contractAnswer, type ContractAnswer } from './contract-answers.js';

/** The answer to a resume, and whether it is the recorded one. */
export interface ResumeAnswer {
  answer: ContractAnswer;
  replayed: boolean;
}

/** One session's state over a run. */
export interface SessionState {
  /** Answers a resume carrying `key` (undefined: none or ambiguous), applying it if the session is paused. */
  resume(key: string | undefined): ResumeAnswer;
}

/** A paused session. */
export function createSessionState(): SessionState {
  let applied = false;
  // One session sees a handful of keys in a run: at most one per attempt, and attempts are bounded by the run.
  const recorded = new Map<string, ContractAnswer>();
  return {
    resume(key) {
      const replay = key === undefined ? undefined : recorded.get(key);
      if (replay) return { answer: { ...replay, headers: { ...replay.headers, 'idempotent-replayed': 'true' } }, replayed: true };
      if (applied) return { answer: contractAnswer('notPaused'), replayed: false };
      applied = true;
      const answer = contractAnswer('resumed');
      if (key !== undefined) recorded.set(key, answer);
      return { answer, replayed: false };
    },
  };
}
